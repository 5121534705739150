"""Read the rules a text states (a hint, a handout) and evaluate each on the golden model at its boundary.

A text teaches by sentences such as "memory-bound is ai*bw < peak", "at the ridge the compute roof
binds", "add half an LSB (1 << (FRAC_BITS-1)) ... then drop FRAC_BITS bits", "(q + 1) >> 1",
"on a tie the lowest index wins" or "within COUNT_BITS + FRAC_BITS + 4 cycles". `claims` finds each
such statement and evaluates what it says on the vectors where it matters (one full-precision step
below the ridge, at it, above it; a rounding tie and its neighbours; two levels with equal products),
against model/roofline_golden (and, for the latency bounds and the reset, the contract's figures).
A claim that says the opposite of the contract evaluates False; a text can also state no rule at all,
which the tests check by the kinds of claim they require.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from roofline_golden import QFormat, fixed

FMT = QFormat(8, 8)  # small enough that one full-precision step is one raw unit of ai with bw = 1 LSB
F = FMT.frac_bits
COUNT_BITS = 16


@dataclass(frozen=True)
class Claim:
    kind: str  # what the sentence is about: "memory-bound test", "ridge roof", "rounding", ...
    said: str  # the words, as found
    holds: bool  # what it says agrees with the golden model (or the contract) where it matters


def normal(text: str) -> str:
    """Text as a rule reads: no markup, `ai x bw` as ai*bw, one space, lower case."""
    text = text.replace("**", "").replace("`", "")
    text = re.sub(r"\bai(_l)? ?[x*] ?bw(_l)?\b", "ai*bw", text)
    return " ".join(text.split()).lower()


# ------------------------------------------------------------------ a small, safe evaluator


OPERATORS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv,
}


def evaluate(expression: str, names: dict[str, int]) -> int:
    """An integer expression as a text writes it (2^k is a power, x a product); ValueError if it is not one."""
    source = expression.replace("^", "**").replace(" x ", " * ")
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError:
        raise ValueError(f"not an expression: {expression!r}") from None

    def value(node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            return OPERATORS[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"not an expression of {sorted(names)}: {expression!r}")

    return value(tree)


COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt, "!=": operator.ne}
EXPRESSION = r"[\w()+\-*<>^ ]+?"  # an arithmetic expression in a sentence (shortest match)


# ------------------------------------------------------------------ the ridge


def ridge_products() -> list[tuple[int, int, int]]:
    """(peak, bw, ai) raw at FMT with ai*bw one full-precision step below peak << F, equal to it, above it."""
    peak = 3
    return [(peak, 1, (peak << F) + step) for step in (-1, 0, 1)]


def memory_bound_test(text: str) -> list[Claim]:
    found = re.finditer(r"(?:memory[- ]bound(?: is| when)?|mem_bound_o)[^.;:]*?ai\*bw\s*(<=|<|==|>=|>|!=)\s*peak", text)
    return [Claim("memory-bound test", m[0], all(
        COMPARE[m[1]](ai * bw, peak << F) == fixed.attainable(FMT, peak, bw, ai).mem_bound
        for peak, bw, ai in ridge_products())) for m in found]


def ridge_roof(text: str) -> list[Claim]:
    """"at the ridge (ai*bw == peak) the compute roof binds": the roof the model gives exactly at the ridge."""
    peak, bw, ai = ridge_products()[1]
    at_ridge = "memory" if fixed.attainable(FMT, peak, bw, ai).mem_bound else "compute"
    found = re.finditer(r"at the ridge[^.;:]*?the (compute|memory) roof binds", text)
    return [Claim("ridge roof", m[0], m[1] == at_ridge) for m in found]


def below_ridge(text: str) -> list[Claim]:
    """"below 1 the memory roof binds" (x = ai*bw / peak, as the lab pictures draw it): one step below the ridge."""
    peak, bw, ai = ridge_products()[0]
    below = "memory" if fixed.attainable(FMT, peak, bw, ai).mem_bound else "compute"
    found = re.finditer(r"below (?:1|the ridge|it),? the (compute|memory) roof binds", text)
    return [Claim("below the ridge", m[0], m[1] == below) for m in found]


# ------------------------------------------------------------------ rounding


def rounding_products() -> list[int]:
    """Full-precision products around a rounding tie: below it, at it, above it, and an exact one."""
    base = 5 << F
    half = 1 << (F - 1)
    return [base, base + half - 1, base + half, base + half + 1, base + (1 << F) - 1]


def model_cap(product: int) -> int:
    """The model's cap of a memory-bound product (bw = 1 LSB, ai = product; peak at the top)."""
    result = fixed.attainable(FMT, FMT.max_raw, 1, product)
    assert result.mem_bound
    return result.cap


def add_half(text: str) -> list[Claim]:
    """"add half an LSB (1 << (FRAC_BITS-1)) to the full product, then drop FRAC_BITS bits"; the amount
    in brackets, when given, is evaluated; the bits dropped must be named."""
    found = re.finditer(r"add (?:half an lsb(?: \((" + EXPRESSION + r")\)(?=[ ,.;:]|$))?|(" + EXPRESSION + r"),)"
                        r"[^.;]*?(?:drop|truncate)(?: the low)?(?: (" + EXPRESSION + r") bits)?", text)
    claims = []
    for m in found:
        names = {"frac_bits": F, "f": F}
        added = evaluate(m[1] or m[2], names) if (m[1] or m[2]) else 1 << (F - 1)
        dropped = evaluate(m[3], names) if m[3] else F
        claims.append(Claim("rounding", m[0], all((p + added) >> dropped == model_cap(p) for p in rounding_products())))
    return claims


def rounding_formula(text: str) -> list[Claim]:
    """"cap_raw = (product + 2^(F-1)) >> F"."""
    found = re.finditer(r"= \((product) \+ (" + EXPRESSION + r")\) >> (\w+)", text)
    return [Claim("rounding", m[0], all(
        evaluate(f"(product + {m[2]}) >> {m[3]}", {"product": p, "f": F, "frac_bits": F}) == model_cap(p)
        for p in rounding_products())) for m in found]


def ties(text: str) -> list[Claim]:
    """"ties up" / "ties down" / "ties to even": where a tie goes, by the model."""
    tie = (5 << F) + (1 << (F - 1))
    goes = "up" if model_cap(tie) == 6 else "down"
    found = re.finditer(r"ties (?:go )?(up|down|to even|away)", text)
    return [Claim("ties", m[0], m[1] == goes) for m in found]


def divisions() -> list[tuple[int, int]]:
    """(ops, bytes) whose quotient ops * 2^F / bytes falls just below a tie, on it, just above it, and exact."""
    return [(1, 1 << (F + 1)), (3, 1 << (F + 1)), (1, 3), (2, 3), (5, 7), (7, 5), (1000, 999), (1, 1), (0, 5)]


def extra_quotient_bit(text: str) -> list[Claim]:
    """"divide ops x 2^(FRAC_BITS+1) ... round with (q + 1) >> 1": the quotient is ops * 2^E // bytes."""
    found = re.finditer(r"(?:divide )?ops x 2\^\((" + EXPRESSION + r")\)(?=[ ,.;:]|$)[^.;]*?((?:\(q \+ \d+\)|q) >> \d+)", text)
    claims = []
    for m in found:
        exponent = evaluate(m[1], {"frac_bits": F, "f": F})
        claims.append(Claim("divider rounding", m[0], all(
            evaluate(m[2], {"q": (ops << exponent) // moved}) == fixed.intensity(FMT, COUNT_BITS, ops, moved).ai
            for ops, moved in divisions())))
    return claims


# ------------------------------------------------------------------ levels


def binding(text: str) -> list[Claim]:
    """Which level binds on a tie, which binds among different products, and binding_o when compute binds."""
    peak = 100
    tie = fixed.hierarchy(FMT, peak, [1, 1], [5 << F, 5 << F]).binding
    different = fixed.hierarchy(FMT, peak, [1, 1], [7 << F, 5 << F]).binding  # the second is smaller
    compute = fixed.hierarchy(FMT, peak, [1 << F, 1 << F], [peak, peak])  # both at the ridge
    claims = [Claim("level tie", m[0], (tie == 0) == (m[1] in ("lowest", "lower")))
              for m in re.finditer(r"on a tie the (lowest|lower|highest|higher) index wins", text)]
    claims += [Claim("level tie", m[0], (tie == 0) == (m[1] == "lower"))
               for m in re.finditer(r"the (lower|higher) index binds", text)]
    claims += [Claim("binding level", m[0], (different == 1) == (m[1] == "smallest"))
               for m in re.finditer(r"binding level (?:has|is)[^.;]*?the (smallest|largest) full[- ]precision", text)]
    claims += [Claim("compute binding", m[0], evaluate(m[1], {"levels": 2}) == compute.binding and not compute.mem_bound)
               for m in re.finditer(r"binding_o = (\w+),? (?:cap_o = peak_i, mem_bound_o = 0|when (?:the )?compute)", text)]
    return claims


# ------------------------------------------------------------------ divider flags, widths, latency, reset


def saturation(text: str) -> list[Claim]:
    """"(a quotient that does not fit W bits | bytes = 0) gives ai_o all ones with sat_o [and div0_o]"."""
    cases = {"quotient": fixed.intensity(FMT, COUNT_BITS, FMT.max_raw, 1), "bytes = 0": fixed.intensity(FMT, COUNT_BITS, 3, 0)}
    claims = []
    sentence = r"(a quotient that does not fit w bits|bytes = 0) gives (ai_o )?all ones with ([\w ]+?)(?: set)?(?:;|$|\.)"
    for m in re.finditer(sentence, text):
        out = cases["quotient" if m[1].startswith("a quotient") else "bytes = 0"]
        flags = {name for name in ("sat_o", "div0_o") if getattr(out, name[:-2])}
        claims.append(Claim("saturation", m[0], out.ai == FMT.max_raw and set(re.findall(r"\w+_o", m[3])) == flags))
    return claims


def product_width(text: str) -> list[Claim]:
    """"2W = 2*(INT_BITS+FRAC_BITS) bits": the width that holds every product of two W-bit values."""
    claims = []
    for m in re.finditer(r"2w = (" + EXPRESSION + r") bits", text):
        fits = True
        for fmt in (FMT, QFormat(24, 16), QFormat(1, 1)):
            fits &= evaluate(m[1], {"int_bits": fmt.int_bits, "frac_bits": fmt.frac_bits}) == (fmt.max_raw ** 2).bit_length()
        claims.append(Claim("product width", m[0], fits))
    for m in re.finditer(r"compare it with (peak << frac_bits)", text):
        claims.append(Claim("product scale", m[0], all(
            (ai * bw < evaluate(m[1], {"peak": peak, "frac_bits": F})) == fixed.attainable(FMT, peak, bw, ai).mem_bound
            for peak, bw, ai in ridge_products())))
    return claims


def contract_latency_bound(count_bits: int, frac_bits: int) -> int:
    """roofline-spec section 3: done_o comes at most COUNT_BITS + FRAC_BITS + 4 cycles after start_i is sampled."""
    return count_bits + frac_bits + 4


def documented_pipe_latency(mul_stages: int) -> int:
    """docs/design.md: the pipeline's latency is 3 + MUL_STAGES cycles (4 by default)."""
    return 3 + mul_stages


def latency(text: str) -> list[Claim]:
    claims = []
    for m in re.finditer(r"within (" + EXPRESSION + r") cycles", text):
        claims.append(Claim("divider latency", m[0], all(
            evaluate(m[1], {"count_bits": c, "frac_bits": f}) == contract_latency_bound(c, f)
            for c, f in ((64, 16), (16, 8), (1, 1)))))
    for m in re.finditer(r"at most (" + EXPRESSION + r") cycles(?: \((\d+) at the defaults\))?", text):
        holds = all(evaluate(m[1], {"count_bits": c, "frac_bits": f}) == contract_latency_bound(c, f)
                    for c, f in ((64, 16), (16, 8), (1, 1)))
        claims.append(Claim("divider latency", m[0], holds and (not m[2] or int(m[2]) == contract_latency_bound(64, 16))))
    for m in re.finditer(r"exactly (" + EXPRESSION + r") cycles after[^(]*(?:\((\d+) (?:for|with) mul_stages = (\d+))?", text):
        holds = all(evaluate(m[1], {"mul_stages": s}) == documented_pipe_latency(s) for s in (1, 2, 3, 4))
        if m[2]:
            holds &= int(m[2]) == documented_pipe_latency(int(m[3]))
        claims.append(Claim("pipe latency", m[0], holds))
    return claims


def reset(text: str) -> list[Claim]:
    """roofline-spec section 3: rst_ni is an active-low asynchronous reset."""
    claims = [Claim("reset", m[0], m[1] == "asynchronous" and m[2] == "low")
              for m in re.finditer(r"rst_ni is (asynchronous|synchronous) and active (low|high)", text)]
    claims += [Claim("reset", m[0], m[1] == "low" and m[2] == "asynchronous")
               for m in re.finditer(r"rst_ni \(active (low|high), (asynchronous|synchronous)\)", text)]
    return claims


# ------------------------------------------------------------------ the handshake and the pulse


def transfers(valid: bool, ready: bool) -> bool:
    """A valid/ready transfer (docs/design.md, roofline_pipe_reg): in a cycle where both are high."""
    return valid and ready


def accepts(last_stage_empty: bool, result_taken: bool) -> bool:
    """The pipeline takes an input when its last stage is empty or its result is being taken
    (in_ready_o = !out_valid_o || out_ready_i, as rtl/roofline_pipe_reg.sv's ready_o)."""
    return last_stage_empty or result_taken


def handshake(text: str) -> list[Claim]:
    """What a transfer is, when outputs hold, and when an input is taken, each over every case."""
    found = []
    for m in re.finditer(r"a transfer happens when valid (and|or) ready (?:are both|is) (high|low)", text):
        def stated(valid: bool, ready: bool, m: re.Match[str] = m) -> bool:
            level = m[2] == "high"
            return (valid == level and ready == level) if m[1] == "and" else (valid == level or ready == level)
        found.append(Claim("transfer", m[0], all(stated(v, r) == transfers(v, r) for v in (0, 1) for r in (0, 1))))
    for m in re.finditer(r"hold every output while (out_ready_i|in_ready_o|in_valid_i|out_valid_o) is (low|high)", text):
        found.append(Claim("hold", m[0], (m[1], m[2]) == ("out_ready_i", "low")))  # no transfer out: nothing changes
    for m in re.finditer(r"accept a new input whenever the last stage is (empty|full) (or|and) its result is "
                         r"(being taken|not taken)", text):
        def said(empty: bool, taken: bool, m: re.Match[str] = m) -> bool:
            first = empty if m[1] == "empty" else not empty
            second = taken if m[3] == "being taken" else not taken
            return (first or second) if m[2] == "or" else (first and second)
        found.append(Claim("accept", m[0], all(said(e, t) == accepts(e, t) for e in (0, 1) for t in (0, 1))))
    return found


def pulse(text: str) -> list[Claim]:
    """roofline-spec: done_o is a one-cycle pulse, with ai_o, sat_o and div0_o valid in it."""
    return [Claim("pulse", m[0], m[1] == "one" and m[2] == "once" and m[3] == "that")
            for m in re.finditer(r"done_o is a (one|two|multi)-cycle pulse, (once|twice) per operation, with ai_o, sat_o "
                                 r"and div0_o valid in (that|the next) cycle", text)]


READERS = (memory_bound_test, ridge_roof, below_ridge, add_half, rounding_formula, ties, extra_quotient_bit, binding,
           saturation, product_width, latency, reset, handshake, pulse)


def claims(text: str) -> list[Claim]:
    """Every rule the text states that a reader above knows, each evaluated."""
    said = normal(text)
    return [claim for reader in READERS for claim in reader(said)]
