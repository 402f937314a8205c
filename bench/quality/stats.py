#!/usr/bin/env python3
"""Static code-quality comparison of two AMDGPU code objects, kernel by kernel.

usage: stats.py [--mcpu gfx942] [--markdown] [--loops] REPTX.hsaco NATIVE.hsaco

For every kernel of NATIVE (the clang-22 HIP build) it prints the same kernel of REPTX (the
recompiled PTX) next to it, with the ratio reptx/native of:
  insts    machine instructions in the kernel symbol (llvm-objdump; alignment padding excluded)
  vgpr     .vgpr_count of the NT_AMDGPU_METADATA note (llvm-readelf --notes)
  sgpr     .sgpr_count (includes VCC and the other registers the hardware reserves)
  scratch  .private_segment_fixed_size, bytes per lane (spills and stack)
  lds      .group_segment_fixed_size, bytes per work-group (static shared memory)
  cycles   llvm-mca cycles per source-level iteration of the hot loop, see hot_loop()
Exit status: 0 when every kernel of NATIVE is in REPTX, 1 otherwise (a kernel reptx did not
compile is a build failure), 2 on a tool error.
"""
import argparse
import math
import os
import re
import subprocess
import sys

LLVM = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
MCA_ITERATIONS = 100
GOAL = 1.10


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout


def metadata(path):
    """Kernel-level keys of the metadata note, per kernel name."""
    kernels, cur = [], None
    for line in run([f"{LLVM}/llvm-readelf", "--notes", path]).splitlines():
        # A kernel map starts with "  - .key:" at indentation 2; its keys sit at indentation 4.
        m = re.match(r"^  - (\.[a-z_]+):\s*(.*)$", line)
        if m:
            cur = {m.group(1): m.group(2).strip()}
            kernels.append(cur)
            continue
        m = re.match(r"^    (\.[a-z_]+):\s*(\S.*)?$", line)
        if m and cur is not None:
            cur[m.group(1)] = (m.group(2) or "").strip()
        elif re.match(r"^\S", line):
            cur = None
    return {k[".name"]: k for k in kernels if ".name" in k}


def symbol_sizes(path):
    out = {}
    for line in run([f"{LLVM}/llvm-readelf", "-s", "--wide", path]).splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] == "FUNC":
            out[p[7]] = (int(p[1], 16), int(p[2]))
    return out


INST_RE = re.compile(r"^\s+([a-z_][a-z0-9_.]*)(.*?)\s*// ([0-9A-F]+):")


def disassembly(path, mcpu, syms):
    """{kernel: [(address, mnemonic, text)]} for the instructions inside each kernel symbol."""
    out, cur, lo, hi = {}, None, 0, 0
    for line in run([f"{LLVM}/llvm-objdump", "-d", f"--mcpu={mcpu}", path]).splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:", line)
        if m:
            cur = m.group(2) if m.group(2) in syms else None
            if cur:
                lo, size = syms[cur]
                hi = lo + size
                out[cur] = []
            continue
        m = INST_RE.match(line)
        if cur and m:
            addr = int(m.group(3), 16)
            if lo <= addr < hi:
                out[cur].append((addr, m.group(1), (m.group(1) + m.group(2)).strip()))
    return out


def branch_target(addr, text):
    """Target address of an s_branch/s_cbranch_* (SOPP simm16 in dwords, relative to PC+4)."""
    m = re.match(r"s_(c?branch)\w*\s+(\d+)", text)
    if not m:
        return None
    imm = int(m.group(2))
    if imm >= 0x8000:
        imm -= 0x10000
    return addr + 4 + imm * 4


# The hot loop of each kernel is named by a marker: instructions that occur once per element (per
# source-level iteration) of that loop and in no other loop of the kernel (a regular expression
# matched at the start of the mnemonic), and a divisor; weight() counts the elements of a vector
# form. Work is then (sum of weights) / divisor per iteration of a machine loop, so a loop that
# one compiler unrolled four times and the other not at all compare per source-level iteration.
# None: the kernel has no loop left (both compilers unroll it fully), the region is the whole
# kernel, once. A kernel not listed uses its global stores.
HOT_LOOP_MARKERS = {
    "vadd": (r"global_store_", 1),               # c[i] = a[i] + b[i]
    "reduce_sum": (r"global_load_", 1),          # the grid-stride accumulation
    "sgemm_tiled": (r"s_barrier$", 2),           # one 16-wide tile step, two barriers
    "histogram256": (r"ds_add_(rtn_)?u32$", 1),  # the shared-memory atomic per byte
    "scan_block": (r"s_barrier$", 1),            # one Hillis-Steele step
    "scan_rows_warp": (r"global_store_", 1),     # 32 elements of the row (one per lane)
    "transpose": None,
    # One output point: the scalar store. clang also vectorizes a copy of the loop that it runs
    # only when Nx == 1 (stride speculation), which never executes: such a kernel returns first.
    "stencil5": (r"global_store_dword$", 1),
    "softmax_rows": (r"global_store_", 1),       # the final exp-and-scale loop
    "layernorm_rows": (r"global_store_", 1),     # the normalising loop
    "batched_gemm16": (r"s_barrier$", 2),        # one 16 x 16 product
    "spmv_csr": (r"v_(pk_)?fma?c?_f32", 1),      # one nonzero (its fma)
}


def weight(mnem):
    """Elements one instruction handles: dwordxN / bNxN loads and stores, packed v_pk_ math,
    64/128-bit LDS accesses."""
    m = re.search(r"(?:dword|b32|b)x(\d)$", mnem)
    if m:
        return int(m.group(1))
    if mnem.startswith("v_pk_"):
        return 2
    if re.search(r"_b64$|_b128$", mnem) and mnem.startswith("ds_"):
        return {"64": 2, "128": 4}[re.search(r"(\d+)$", mnem).group(1)]
    return 1


def innermost_loops(insts):
    """A loop is a header (the target of backward branches: target <= the branch's address) and
    the instructions from it to the last backward branch to it, in layout order; innermost loops
    are those with no other loop inside that range. LLVM's block placement keeps a loop body
    contiguous and ends it with a latch's backward branch; an if inside the body stays in the range
    as forward-branch-skipped code, and several latches of one header (a `continue`, a divergent
    if's join) make one loop."""
    last = {}
    for addr, mnem, text in insts:
        if mnem.startswith("s_branch") or mnem.startswith("s_cbranch"):
            t = branch_target(addr, text)
            if t is not None and t <= addr:
                last[t] = max(last.get(t, addr), addr)
    back = sorted(last.items())
    loops = []
    for t, b in back:
        if any((t2, b2) != (t, b) and t <= t2 and b2 <= b for t2, b2 in back):
            continue
        loops.append([x for x in insts if t <= x[0] <= b])
    return loops


def hot_loop(name, insts):
    """(region, units of work per pass) of the kernel's hot loop: among the innermost loops that
    hold its marker, the one with the most work per iteration (an unrolled main loop rather than
    its remainder loop). None when the marker is in no innermost loop."""
    spec = HOT_LOOP_MARKERS.get(name, (r"global_store_", 1))
    if spec is None:
        return insts, 1
    pat, div = spec
    best = None
    for region in innermost_loops(insts):
        units = sum(weight(m) for _, m, _ in region if re.match(pat, m)) / div
        if units and (best is None or units > best[1]):
            best = (region, units)
    return best


def mca_cycles(region, mcpu):
    """llvm-mca cycles per iteration of one region (its instructions as assembly text)."""
    text = "".join("\t" + x[2] + "\n" for x in region)
    p = subprocess.run([f"{LLVM}/llvm-mca", "-march=amdgcn", f"-mcpu={mcpu}",
                        f"-iterations={MCA_ITERATIONS}", "-"], input=text, capture_output=True,
                       text=True)
    m = re.search(r"^Total Cycles:\s+(\d+)", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"llvm-mca failed:\n{p.stderr}")
    return int(m.group(1)) / MCA_ITERATIONS


def analyse(path, mcpu):
    meta = metadata(path)
    syms = symbol_sizes(path)
    dis = disassembly(path, mcpu, {k: syms[k] for k in meta if k in syms})
    out = {}
    for name, md in meta.items():
        insts = dis.get(name, [])
        hot = hot_loop(name, insts)
        out[name] = {
            "insts": len(insts),
            "vgpr": int(md.get(".vgpr_count", 0)),
            "sgpr": int(md.get(".sgpr_count", 0)),
            "scratch": int(md.get(".private_segment_fixed_size", 0)),
            "lds": int(md.get(".group_segment_fixed_size", 0)),
            "cycles": mca_cycles(hot[0], mcpu) / hot[1] if hot else math.nan,
            "unroll": hot[1] if hot else 0,
            "loop_insts": len(hot[0]) if hot else 0,
            "hot": hot,
            "whole": HOT_LOOP_MARKERS.get(name, "") is None,
        }
    return out


METRICS = ["insts", "vgpr", "sgpr", "scratch", "lds", "cycles"]


def loop_desc(k):
    """Instructions of the hot loop, and source iterations per pass where it is unrolled."""
    if not k["hot"]:
        return "none"
    if k["whole"]:
        return f"{k['loop_insts']} (no loop)"
    u = k["unroll"]
    return f"{k['loop_insts']}" + (f" (x{u:g})" if u != 1 else "")


def ratio(r, n):
    if isinstance(r, float) and math.isnan(r) or isinstance(n, float) and math.isnan(n):
        return math.nan
    if r == n:
        return 1.0
    if n == 0:
        return math.inf
    return r / n


def fmt_num(v):
    if isinstance(v, float):
        return "n/a" if math.isnan(v) else f"{v:.1f}"
    return str(v)


def fmt_ratio(x):
    return "inf" if math.isinf(x) else "n/a" if math.isnan(x) else f"{x:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpu", default="gfx942")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table")
    ap.add_argument("--loops", action="store_true", help="print the hot loops of both builds")
    ap.add_argument("reptx")
    ap.add_argument("native")
    a = ap.parse_args()
    try:
        rep = analyse(a.reptx, a.mcpu)
        nat = analyse(a.native, a.mcpu)
    except (RuntimeError, OSError) as e:
        print(f"stats.py: {e}", file=sys.stderr)
        return 2

    head = ["kernel"] + [f"{m} r/n" for m in METRICS] + ["hot loop r/n", "worst", "<= 1.10x"]
    rows, worst_all, failed, logs = [], [], [], {}
    for name in nat:
        n = nat[name]
        if name not in rep:
            failed.append(name)
            rows.append([name] + ["not compiled by reptx"] + [""] * (len(head) - 2))
            continue
        r = rep[name]
        cells, ratios = [name], []
        for m in METRICS:
            q = ratio(r[m], n[m])
            ratios.append(q)
            cells.append(f"{fmt_num(r[m])}/{fmt_num(n[m])} = {fmt_ratio(q)}")
        cells.append(f"{loop_desc(r)} / {loop_desc(n)}")
        w = max(ratios, key=lambda q: math.inf if math.isnan(q) else q)
        worst_all.append(ratios)
        cells += [f"{METRICS[ratios.index(w)]} {fmt_ratio(w)}",
                  "yes" if all(q <= GOAL for q in ratios) else "no"]
        rows.append(cells)
    # Geometric mean over the kernels both builds have, per metric (a 0/0 pair counts as 1).
    if worst_all:
        gm = ["geomean"]
        for i in range(len(METRICS)):
            vals = [rs[i] for rs in worst_all]
            finite = [v for v in vals if math.isfinite(v)]
            g = math.exp(sum(math.log(v) for v in finite) / len(finite)) if finite else 1.0
            gm.append(fmt_ratio(g) + ("" if len(finite) == len(vals) else " (finite)"))
        gm += ["", "", f"{sum(all(q <= GOAL for q in rs) for rs in worst_all)} of {len(nat)}"]
        rows.append(gm)

    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(row[i])) for row in rows + [head]) for i in range(len(head))]
        for row in [head] + rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    print(f"\ncycles: llvm-mca -mcpu={a.mcpu} -iterations={MCA_ITERATIONS} on the hot loop, per "
          "source-level iteration; hot loop: its instructions (xN: source iterations per pass "
          "where unrolled; 'no loop': none left, the whole kernel once; 'none': marker not found)."
          )
    if a.loops:
        for name in nat:
            for tag, obj in (("reptx", rep), ("native", nat)):
                if name not in obj:
                    continue
                k = obj[name]
                if not k["hot"]:
                    print(f"\n## {name} {tag}: no innermost loop holds the marker")
                    continue
                region, units = k["hot"]
                print(f"\n## {name} {tag}: {len(region)} instructions, {units:g} iterations per "
                      f"pass, {mca_cycles(region, a.mcpu):.1f} cycles per pass")
                for x in region:
                    print(f"  {x[0]:6x}  {x[2]}")
    if failed:
        print(f"\nnot compiled by reptx: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
