`timescale 1ns / 1ps
// Bulk-sweep testbench wrapper (simulation only: it makes its own clock and reads and
// writes files).
//
// cocotb writes a batch of input beats to a file, sets beats_i and pulses start_i; this
// wrapper streams the beats, one per clock, through a valid/ready pipeline around LANES
// copies of the unit under test (roofline_attainable, or roofline_hierarchy when
// HIERARCHY = 1), writes one output beat per result beat, then pulses done_o. Nothing
// crosses VPI per vector, and the only per-vector work outside the RTL is file I/O.
//
// The beats below are what the wrapper streams. On Icarus the files hold them as they are, and
// the fields are packed tight. On Verilator every field of a beat has a 64-bit word of its own
// (FIELD_W = 64, the field in its low bits), the files hold one 64-bit word per field in the
// same order, and roofline_bulk_io.cpp (DPI) copies a beat from or to its file as it lies: no
// bit is packed or unpacked on the way, in numpy or in C++.
// Input beat, read with $fread (big-endian) on Icarus: LANES lanes, lane 0 in the low bits, each
//   lane the fields {peak, bw[L-1] .. bw[0], ai[L-1] .. ai[0]}, ai[0] lowest, FIELD_W bits each;
//   the beat is zero-padded at the top to whole bytes.
// Output beat, written with %u (little-endian 32-bit words, low word first) on Icarus: LANES
//   lanes, lane 0 in the low bits, each lane from its low bits up: cap (W bits), mem_bound, and
//   for the hierarchy binding ($clog2(L+1) bits) and level_cap[0 .. L-1], packed tight on
//   Icarus and FIELD_W bits each on Verilator; the beat is zero-padded to whole 32-bit words.
// Files are <dir>/bulk_in_<slot_i>.bin and <dir>/bulk_out_<slot_i>.bin, <dir> from the plusarg
// +roofline_dir=<path> (default "."): the helpers write the next batches while this one streams.
module roofline_bulk_tb #(
  parameter int INT_BITS    = 24,
  parameter int FRAC_BITS   = 16,
  parameter int LEVELS      = 1,
  parameter int HIERARCHY   = 0,
  parameter int LANES       = 1
) (
  input  logic        rst_ni,
  input  logic        start_i,   // sampled while idle with beats_i > 0: stream beats_i beats
  input  logic [31:0] beats_i,
  input  logic [1:0]  slot_i,    // which pair of files: batches in flight use different ones
  output logic        busy_o,
  output logic        done_o,    // one-cycle pulse: the output file is complete and closed
  // The first output bit of this batch that held X or Z (4-state simulators only): which
  // beat, lane and field (0 cap, 1 mem_bound, 2 binding, 3 + l level_cap[l]).
  output logic        unknown_o,
  output logic [31:0] unknown_beat_o,
  output logic [15:0] unknown_lane_o,
  output logic [7:0]  unknown_field_o
);
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int L         = (HIERARCHY != 0) ? LEVELS : 1;
`ifdef VERILATOR
  localparam int FIELD_W   = 64;  // each field in a 64-bit word, as the files hold it
`else
  localparam int FIELD_W   = W;   // fields packed tight, as $fread and $fwrite move them
`endif
  localparam int LANE_IN_W = (1 + 2 * L) * FIELD_W;
  localparam int IN_BYTES  = (LANES * LANE_IN_W + 7) / 8;
  localparam int IN_W      = 8 * IN_BYTES;
  localparam int IDX_W     = $clog2(L + 1);
  localparam int FIELDS    = (HIERARCHY != 0) ? 3 + L : 2;
`ifdef VERILATOR
  localparam int RESULT_W  = FIELDS * FIELD_W;
`else
  localparam int RESULT_W  = (HIERARCHY != 0) ? W + 1 + IDX_W + L * W : W + 1;
`endif
  localparam int OUT_W     = 32 * ((LANES * RESULT_W + 31) / 32);
  localparam int CLK_HALF_NS = 5;

`ifdef VERILATOR
  // With Verilator, a batch's files are mapped into memory through DPI (roofline_bulk_io.cpp) and
  // each beat is one copy of IN_W / 32 or OUT_W / 32 words; Icarus has no DPI and uses $fread and
  // $fwrite on the same files.
  import "DPI-C" function int roofline_bulk_open(input string in_path, input string out_path, input int out_beats,
                                                 input int out_words);
  import "DPI-C" function int roofline_bulk_read(output bit [IN_W-1:0] beat, input int words);
  import "DPI-C" function void roofline_bulk_write(input bit [OUT_W-1:0] beat, input int words);
  import "DPI-C" function int roofline_bulk_close();
`endif

  logic clk = 1'b0;
  always #(CLK_HALF_NS) clk = ~clk;

  string  dir, in_path, out_path;
  integer in_fd, out_fd;
  logic [31:0] to_read, to_write, beats;

  initial begin
    if (!$value$plusargs("roofline_dir=%s", dir)) dir = ".";
  end

  // Source: one beat per clock while the pipeline takes it.
  logic            src_valid, src_ready;
  logic [IN_W-1:0] src_beat;
  logic [IN_W-1:0] next_beat;  // read with a blocking call, then registered like any flop

  always @(posedge clk or negedge rst_ni) begin
    if (!rst_ni) begin
      src_valid <= 1'b0;
      to_read   <= '0;
    end else if (start_i && !busy_o && beats_i != 0) begin
      in_path  = $sformatf("%s/bulk_in_%0d.bin", dir, slot_i);
      out_path = $sformatf("%s/bulk_out_%0d.bin", dir, slot_i);
`ifdef VERILATOR
      if (roofline_bulk_open(in_path, out_path, beats_i, OUT_W / 32) == 0)
        $fatal(1, "roofline_bulk_tb: cannot read %s or write %s", in_path, out_path);
`else
      in_fd  = $fopen(in_path, "rb");
      out_fd = $fopen(out_path, "wb");
      if (in_fd == 0) $fatal(1, "roofline_bulk_tb: cannot read %s", in_path);
      if (out_fd == 0) $fatal(1, "roofline_bulk_tb: cannot write %s", out_path);
`endif
      src_valid <= 1'b0;
      to_read   <= beats_i;
    end else if (!src_valid || src_ready) begin
      if (to_read != 0) begin
`ifdef VERILATOR
        if (roofline_bulk_read(next_beat, IN_W / 32) == 0)
          $fatal(1, "roofline_bulk_tb: %s ended early", in_path);
`else
        if ($fread(next_beat, in_fd) != IN_BYTES) $fatal(1, "roofline_bulk_tb: %s ended early", in_path);
`endif
        src_beat  <= next_beat;
        src_valid <= 1'b1;
        to_read   <= to_read - 1;
      end else begin
        src_valid <= 1'b0;
      end
    end
  end

  // LANES units between an input and an output register.
  logic                        in_valid, in_ready;
  logic [LANES*LANE_IN_W-1:0]  in_beat;
  logic [LANES*RESULT_W-1:0]   lane_results;

  roofline_pipe_reg #(.WIDTH(LANES * LANE_IN_W)) u_in_reg (
    .clk_i  (clk),
    .rst_ni (rst_ni),
    .valid_i(src_valid),
    .ready_o(src_ready),
    .data_i (src_beat[LANES*LANE_IN_W-1:0]),
    .valid_o(in_valid),
    .ready_i(in_ready),
    .data_o (in_beat)
  );

  for (genvar lane = 0; lane < LANES; lane++) begin : gen_lane
    logic [LANE_IN_W-1:0] fields;
    logic [W-1:0]         peak;
    logic [L*W-1:0]       bw, ai;
    assign fields = in_beat[lane*LANE_IN_W +: LANE_IN_W];
    assign peak   = fields[2*L*FIELD_W +: W];
    for (genvar level = 0; level < L; level++) begin : gen_level_fields
      assign ai[level*W +: W] = fields[level*FIELD_W +: W];
      assign bw[level*W +: W] = fields[(L+level)*FIELD_W +: W];
    end

    if (HIERARCHY != 0) begin : gen_hierarchy
      logic [W-1:0]     cap;
      logic [L*W-1:0]   level_cap;
      logic             mem_bound;
      logic [IDX_W-1:0] binding;
      roofline_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(L)) u_dut (
        .peak_i(peak), .bw_i(bw), .ai_i(ai),
        .cap_o(cap), .level_cap_o(level_cap), .mem_bound_o(mem_bound), .binding_o(binding)
      );
`ifdef VERILATOR
      assign lane_results[lane*RESULT_W +: 3*FIELD_W] = {FIELD_W'(binding), FIELD_W'(mem_bound), FIELD_W'(cap)};
      for (genvar level = 0; level < L; level++) begin : gen_level_cap_fields
        assign lane_results[lane*RESULT_W + (3+level)*FIELD_W +: FIELD_W] = FIELD_W'(level_cap[level*W +: W]);
      end
`else
      assign lane_results[lane*RESULT_W +: RESULT_W] = {level_cap, binding, mem_bound, cap};
`endif
    end else begin : gen_attainable
      logic [W-1:0] cap;
      logic         mem_bound;
      roofline_attainable #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS)) u_dut (
        .peak_i(peak), .bw_i(bw), .ai_i(ai), .cap_o(cap), .mem_bound_o(mem_bound)
      );
`ifdef VERILATOR
      assign lane_results[lane*RESULT_W +: RESULT_W] = {FIELD_W'(mem_bound), FIELD_W'(cap)};
`else
      assign lane_results[lane*RESULT_W +: RESULT_W] = {mem_bound, cap};
`endif
    end
  end

  localparam int STAGE_W = LANES * RESULT_W;
  logic               out_valid;
  logic [STAGE_W-1:0] sink_beat;

  roofline_pipe_reg #(.WIDTH(STAGE_W)) u_out_reg (
    .clk_i  (clk),
    .rst_ni (rst_ni),
    .valid_i(in_valid),
    .ready_o(in_ready),
    .data_i (lane_results),
    .valid_o(out_valid),
    .ready_i(1'b1),  // the sink is always ready
    .data_o (sink_beat)
  );

  always @(posedge clk or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_o    <= 1'b0;
      done_o    <= 1'b0;
      to_write  <= '0;
      beats     <= '0;
      unknown_o <= 1'b0;
      unknown_beat_o  <= '0;
      unknown_lane_o  <= '0;
      unknown_field_o <= '0;
    end else if (start_i && !busy_o && beats_i != 0) begin
      busy_o    <= 1'b1;
      to_write  <= beats_i;
      unknown_o <= 1'b0;
      beats     <= beats_i;
    end else if (busy_o && out_valid) begin
`ifndef VERILATOR
      if (!unknown_o && $isunknown(sink_beat)) note_first_unknown(sink_beat, beats - to_write);
`endif
`ifdef VERILATOR
      roofline_bulk_write(OUT_W'(sink_beat), OUT_W / 32);
`else
      $fwrite(out_fd, "%u", OUT_W'(sink_beat));
`endif
      to_write <= to_write - 1;
      if (to_write == 1) begin
        close_files();
        busy_o <= 1'b0;
        done_o <= 1'b1;
      end
    end else begin
      done_o <= 1'b0;
    end
  end

  // Icarus only: a 2-state simulator such as Verilator never holds X or Z.
  task automatic note_first_unknown(input logic [STAGE_W-1:0] results, input logic [31:0] beat);
    logic [RESULT_W+W+8-1:0] lane_result;  // padded: every field's select stays in range
    logic                    unknown;
    logic                    found;
    found = 1'b0;
    for (int lane = 0; lane < LANES; lane++) begin
      lane_result = '0;
      lane_result[RESULT_W-1:0] = results[lane*RESULT_W +: RESULT_W];
      for (int field = 0; field < FIELDS; field++) begin
        if (field == 0) unknown = $isunknown(lane_result[0 +: W]);
        else if (field == 1) unknown = $isunknown(lane_result[W]);
        else if (field == 2) unknown = $isunknown(lane_result[W + 1 +: IDX_W]);
        else unknown = $isunknown(lane_result[W + 1 + IDX_W + (field - 3) * W +: W]);
        if (unknown && !found) begin
          found = 1'b1;
          unknown_o       <= 1'b1;
          unknown_beat_o  <= beat;
          unknown_lane_o  <= 16'(lane);
          unknown_field_o <= 8'(field);
        end
      end
    end
  endtask

  task automatic close_files;
`ifdef VERILATOR
    if (roofline_bulk_close() == 0) $fatal(1, "roofline_bulk_tb: cannot write %s", out_path);
`else
    $fclose(out_fd);
    $fclose(in_fd);
`endif
  endtask
endmodule
