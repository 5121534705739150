// Independent divider: one wide division in a second cycle (latency 2; 1 when bytes == 0).
module roofline_intensity #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int COUNT_BITS = 64
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          start_i,
  input  logic [COUNT_BITS-1:0]         ops_i,
  input  logic [COUNT_BITS-1:0]         bytes_i,
  output logic                          busy_o,
  output logic                          done_o,
  output logic [INT_BITS+FRAC_BITS-1:0] ai_o,
  output logic                          sat_o,
  output logic                          div0_o
);
  localparam int W = INT_BITS + FRAC_BITS;
  localparam int N = COUNT_BITS + FRAC_BITS + 2;
  logic [COUNT_BITS-1:0] ops_q, bytes_q;
  logic [N-1:0] twice_quotient, rounded;
  assign twice_quotient = ({{(FRAC_BITS+2){1'b0}}, ops_q} << (FRAC_BITS + 1)) / {{(FRAC_BITS+2){1'b0}}, bytes_q};
  assign rounded        = (twice_quotient + 1) >> 1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_o <= 0; done_o <= 0; ai_o <= 0; sat_o <= 0; div0_o <= 0; ops_q <= 0; bytes_q <= 0;
    end else begin
      done_o <= 0;
      if (busy_o) begin
        busy_o <= 0;
        done_o <= 1;
        div0_o <= 0;
        if (rounded > {{(N-W){1'b0}}, {W{1'b1}}}) begin
          ai_o <= '1; sat_o <= 1;
        end else begin
          ai_o <= rounded[W-1:0]; sat_o <= 0;
        end
      end else if (start_i) begin
        if (bytes_i == 0) begin
          done_o <= 1; ai_o <= '1; sat_o <= 1; div0_o <= 1;
        end else begin
          busy_o <= 1; ops_q <= ops_i; bytes_q <= bytes_i;
        end
      end
    end
  end
endmodule
