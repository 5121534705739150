`default_nettype none
// Elaboration-time checks of the roofline parameters, written once for every module that
// takes them. A value out of range instantiates a module that does not exist: every tool
// (Icarus, Verilator, Yosys) stops there, and the missing module's name is the message.
// A module passes only the parameters it has; the others keep their always-valid defaults.
module roofline_param_check #(
  parameter int INT_BITS   = 1,
  parameter int FRAC_BITS  = 1,
  parameter int LEVELS     = 1,
  parameter int COUNT_BITS = 1,
  parameter int MUL_STAGES = 1,
  parameter int WIDTH      = 1,   // roofline_pipe_reg's data and roofline_div_step's divisor bits
  parameter int QUOTIENT_W = 2    // roofline_div_step's quotient bits
) ();
  if (INT_BITS < 1) begin : gen_int_bits_check ERROR_roofline_INT_BITS_must_be_at_least_1 u_param_error (); end
  if (FRAC_BITS < 1) begin : gen_frac_bits_check ERROR_roofline_FRAC_BITS_must_be_at_least_1 u_param_error (); end
  if (LEVELS < 1) begin : gen_levels_check ERROR_roofline_LEVELS_must_be_at_least_1 u_param_error (); end
  if (COUNT_BITS < 1) begin : gen_count_bits_check ERROR_roofline_COUNT_BITS_must_be_at_least_1 u_param_error (); end
  if (MUL_STAGES < 1 || MUL_STAGES > 4) begin : gen_mul_stages_check ERROR_roofline_MUL_STAGES_must_be_1_to_4 u_param_error (); end
  if (WIDTH < 1) begin : gen_width_check ERROR_roofline_WIDTH_must_be_at_least_1 u_param_error (); end
  if (QUOTIENT_W < 2) begin : gen_quotient_w_check ERROR_roofline_QUOTIENT_W_must_be_at_least_2 u_param_error (); end
endmodule
`default_nettype wire
