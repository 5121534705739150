`default_nettype none
// One valid/ready pipeline register: full throughput, no loss or duplication.
//
// It accepts a new beat whenever it is empty or its beat leaves in the same cycle, so a
// chain of these moves one beat per clock while the consumer is ready and stalls, holding
// every beat, while it is not. ready_o depends combinationally on ready_i.
module roofline_pipe_reg #(
  parameter int WIDTH = 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  output logic             ready_o,
  input  logic [WIDTH-1:0] data_i,
  output logic             valid_o,
  input  logic             ready_i,
  output logic [WIDTH-1:0] data_o
);
  roofline_param_check #(
    .WIDTH(WIDTH)
  ) u_param_check ();

  logic             valid_q;
  logic [WIDTH-1:0] data_q;

  assign ready_o = !valid_q || ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else if (ready_o) begin
      valid_q <= valid_i;
    end
  end

  // The data register needs no reset: it is never read while valid_q is low.
  always_ff @(posedge clk_i) begin
    if (ready_o && valid_i) begin
      data_q <= data_i;
    end
  end

  assign valid_o = valid_q;
  assign data_o  = data_q;

endmodule
`default_nettype wire
