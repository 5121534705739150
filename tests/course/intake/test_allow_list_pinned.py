"""The allow-list is a decision of the threat model (docs/threat-model.md, boundary 2): these tests
state it here, so that any call added to it, or any refusal taken out of a tool's reading, fails the
everyday tier until the threat model and this file say so too.

- ALLOWED is exactly the calls below: elaboration checks, $display and its kind (to the terminal only),
  time, and the assertion functions;
- every system task and function Icarus Verilog 11 ships (its VPI modules' names, listed below) that
  is not allowed is refused on text, with its file and line, before any tool builds the design;
- Verilator's parse is refused for each node kind below, named as Verilator's (file access, the shell,
  C++, DPI, plusargs, dumps, ending the run, stack traces).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_course.intake import design_check
from roofline_course.intake.tool_outputs import ALLOWED, VERILATOR_REFUSED, verilator_problems

THE_ALLOW_LIST = {
    "$clog2", "$bits", "$signed", "$unsigned", "$size", "$high", "$low", "$left", "$right", "$increment",
    "$dimensions", "$unpacked_dimensions", "$countones", "$countbits", "$onehot", "$onehot0", "$isunknown",
    "$error", "$fatal", "$warning", "$info",
    "$display", "$displayb", "$displayh", "$displayo", "$write", "$writeb", "$writeh", "$writeo",
    "$strobe", "$strobeb", "$strobeh", "$strobeo", "$monitor", "$monitorb", "$monitorh", "$monitoro",
    "$monitoron", "$monitoroff", "$sformatf", "$sformat", "$psprintf",
    "$time", "$stime", "$realtime",
    "$past", "$rose", "$fell", "$stable", "$changed", "$sampled",
}

# Every $name in Icarus Verilog 11's VPI modules (system, vhdl_sys, vhdl_textio, v2005_math, va_math, v2009).
ICARUS_SYSTEM_TASKS = """
$abs $abstime $accept $acos $acosh $asin $asinh $atan $atan2 $atanh $bitstoreal $ceil $clog2 $comment $cos $cosh
$countbits $countdrivers $countones $date $deposit $dimensions $display $displayb $displayh $displayo
$dist_chi_square $dist_erlang $dist_exponential $dist_normal $dist_poisson $dist_t $dist_uniform $dumpall $dumpfile
$dumpflush $dumplimit $dumpoff $dumpon $dumpports $dumpportsall $dumpportsflush $dumpportslimit $dumpportsoff
$dumpportson $dumpvars $end $error $exp $fatal $fclose $fdisplay $fdisplayb $fdisplayh $fdisplayo $feof $ferror
$fflush $fgetc $fgets $finish $finish_and_return $floor $fmonitor $fmonitorb $fmonitorh $fmonitoro $fopen $fopena
$fopenr $fopenw $fputc $fread $fscanf $fseek $fstrobe $fstrobeb $fstrobeh $fstrobeo $ftell $fwrite $fwriteb $fwriteh
$fwriteo $getpattern $high $hypot $increment $incsave $info $input $isunknown $itor $ivlh_attribute_event
$ivlh_falling_edge $ivlh_file_open $ivlh_read $ivlh_readline $ivlh_rising_edge $ivlh_shift_left $ivlh_shift_right
$ivlh_write $ivlh_writeline $key $left $list $log $log10 $low $max $min $monitor $monitorb $monitorh $monitoro
$monitoroff $monitoron $mti_dist_uniform $mti_random $nokey $nolog $onehot $onehot0 $pow $printtimescale $q_add
$q_exam $q_full $q_initialize $q_remove $random $readmemb $readmemh $readmempath $realtime $realtobits $restart
$rewind $right $rtoi $save $scale $scope $sdf_annotate $sformat $sformatf $showscopes $showvars $simparam $simtime
$sin $sinh $size $sqrt $sreadmemb $sreadmemh $sscanf $stime $stop $strobe $strobeb $strobeh $strobeo $swrite
$swriteb $swriteh $swriteo $table_model $tan $tanh $test$plusargs $time $timeformat $timescale $timezero $ungetc
$unpacked_dimensions $urandom $urandom_range $value$plusargs $version $vpi_tree $warning $write $writeb $writeh
$writememb $writememh $writeo
""".split()

VERILATOR_KINDS = {
    "FOPEN", "FOPENMCD", "FCLOSE", "FEOF", "FERROR", "FFLUSH", "FGETC", "FGETS", "FREAD", "FREWIND", "FSCANF", "FSEEK",
    "FTELL", "FUNGETC", "READMEM", "WRITEMEM", "SYSTEMT", "SYSTEMF", "CSTMTUSER", "CEXPRUSER", "SYSTEMCSECTION",
    "DPIEXPORT", "TESTPLUSARGS", "VALUEPLUSARGS", "DUMPCTL", "FINISH", "FINISHFORK", "STOP", "STACKTRACEF", "STACKTRACET",
}


def test_the_allow_list_is_exactly_the_threat_models() -> None:
    assert set(ALLOWED) == THE_ALLOW_LIST, (
        f"added: {sorted(set(ALLOWED) - THE_ALLOW_LIST)}, taken out: {sorted(THE_ALLOW_LIST - set(ALLOWED))}: "
        "a change to what a student's design may call is the threat model's to make (docs/threat-model.md)")


REFUSED = sorted(set(ICARUS_SYSTEM_TASKS) - THE_ALLOW_LIST)


def test_most_of_what_icarus_ships_is_refused() -> None:
    assert len(REFUSED) == 148 and {"$readmemh", "$fmonitorb", "$dist_normal", "$fopen"} <= set(REFUSED)


@pytest.mark.parametrize("name", REFUSED)
def test_every_system_task_icarus_ships_outside_the_allow_list_is_refused_on_text(name: str, tmp_path: Path) -> None:
    (tmp_path / "m.sv").write_text(f"module m;\ninteger x;\ninitial begin\n  x = {name}(1);\nend\nendmodule\n")
    reply = design_check.checked_design([str(tmp_path / "m.sv")], [str(tmp_path)], ["icarus", "verilator", "yosys"],
                                        str(tmp_path), preprocessors=False)
    assert any(problem.startswith(f"m.sv:4: {name}: a design may not call it") for problem in reply["problems"]), reply


def test_verilators_refused_node_kinds_are_the_threat_models() -> None:
    assert set(VERILATOR_REFUSED) == VERILATOR_KINDS


@pytest.mark.parametrize("kind", sorted(VERILATOR_KINDS))
def test_each_node_kind_verilator_may_not_build_is_refused_naming_verilator(kind: str) -> None:
    parse = {"type": "NETLIST", "name": "$root", "modulesp": [
        {"type": "MODULE", "name": "m", "loc": "d,1:1,1:2", "stmtsp": [{"type": kind, "name": "", "loc": "d,7:1,7:2"}]}]}
    [problem] = verilator_problems(parse, lambda line: f"m.sv:{line}")
    assert problem.startswith("m.sv:7: Verilator parsed ") and f"({kind})" in problem, problem
