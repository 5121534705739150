// Properties of roofline_pipe_reg for SymbiYosys (roofline_pipe_reg.sby), included at the end of
// the module when ROOFLINE_FORMAL is defined. Every valid, ready and data pattern is free but for
// a reset in the first cycle. The register holds the beats accepted and not yet delivered (0 or
// 1), the beat it shows is the last one accepted, and a beat the consumer does not take stays,
// unchanged: no beat is lost, repeated or reordered.

  logic             f_past_valid = 1'b0;
  logic [1:0]       f_held;   // accepted - delivered
  logic [WIDTH-1:0] f_last;   // the data of the last beat accepted

  always_ff @(posedge clk_i) f_past_valid <= 1'b1;
  always_comb if (!f_past_valid) assume (!rst_ni);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_held <= '0;
    else f_held <= f_held + 2'(valid_i && ready_o) - 2'(valid_o && ready_i);
  end
  always_ff @(posedge clk_i) if (valid_i && ready_o) f_last <= data_i;

  always_comb begin
    if (rst_ni) begin
      assert (f_held == 2'(valid_o));
      if (valid_o) assert (data_o == f_last);
      assert (ready_o == (!valid_o || ready_i));   // full throughput: a beat leaving makes room
    end
  end

  always_ff @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni && $past(valid_o && !ready_i)) begin
      assert (valid_o && data_o == $past(data_o));
    end
  end

  always_ff @(posedge clk_i) begin
    if (f_past_valid && rst_ni) begin
      cover (valid_o && !ready_i && valid_i);                               // full and stalled, a beat waiting
      cover ($past(valid_o && ready_i && valid_i && ready_o) && valid_o && ready_i);  // back-to-back beats
      cover ($past(valid_o && !ready_i) && valid_o && ready_i);             // a stall released
    end
  end
