"""roofline: place kernels on a platform's roofline, through the exact model or the simulated RTL."""
