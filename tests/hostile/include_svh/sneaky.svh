initial fd = $fopen("leak.txt", "w");
