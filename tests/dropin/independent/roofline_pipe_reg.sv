// An independent valid/ready register, written as a one-entry buffer with a `full` flag and its
// own take/give names: none of the project's internal signals, so make prove checks it by its
// ports alone.
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
  logic full, take, give;
  logic [WIDTH-1:0] held;
  assign give    = full && ready_i;
  assign ready_o = !full || give;
  assign take    = valid_i && ready_o;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) full <= 1'b0;
    else full <= take || (full && !give);
  end
  always_ff @(posedge clk_i) begin
    if (take) held <= data_i;
  end
  assign valid_o = full;
  assign data_o  = held;
endmodule
