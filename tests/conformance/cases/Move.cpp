// mov (PTX ISA 9.7.9.1-2): immediates of every kind, vector pack/unpack, addresses of variables,
// and cvta / isspacep on them (9.7.9.19-20).
#include "../Conformance.h"

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

Case M(std::string Name, std::vector<std::string> In, std::vector<std::string> Out,
       std::string Body, std::vector<std::vector<u64>> Rows, RowFn F, std::string Decls = {}) {
  Case C;
  C.Family = "move";
  C.Name = std::move(Name);
  C.InTypes = std::move(In);
  C.OutTypes = std::move(Out);
  C.Body = std::move(Body);
  C.Rows = std::move(Rows);
  C.Ref = perThread(std::move(F));
  C.ModuleDecls = std::move(Decls);
  return C;
}

} // namespace

void addMoveCases(CaseList &L) {
  L.push_back(M("mov.immediates", {"u32"}, {"u32", "s64", "f32", "f64", "b16"},
                "mov.u32 %d0, 0xdeadbeef;\n mov.s64 %d1, -5;\n mov.f32 %d2, 0f3FC00000;\n"
                " mov.f64 %d3, 0dC004000000000000;\n mov.b16 %d4, 0x8001;",
                {{0}}, [](auto &) {
                  return std::vector<u64>{0xdeadbeef, u64(-5), f32(1.5f), f64(-2.5), 0x8001};
                }));
  L.push_back(M("mov.b64.unpack", {"b64"}, {"b32", "b32"}, "mov.b64 {%d0, %d1}, %a0;",
                rows1({0x1122334455667788ull, 0xffffffff00000000ull}), [](auto &R) {
                  return std::vector<u64>{R[0] & 0xffffffff, R[0] >> 32};
                }));
  L.push_back(M("mov.b64.pack", {"b32", "b32"}, {"b64"}, "mov.b64 %d0, {%a0, %a1};",
                rows2({0x11223344, 0}, {0x55667788, 0xffffffff}),
                [](auto &R) { return std::vector<u64>{R[0] | (R[1] << 32)}; }));
  L.push_back(M("mov.b32.halves", {"b32"}, {"b16", "b16", "b32"},
                "mov.b32 {%d0, %d1}, %a0;\n mov.b32 %d2, {%d1, %d0};",
                rows1({0x11223344, 0x8000ffff}), [](auto &R) {
                  u64 Lo = R[0] & 0xffff, Hi = R[0] >> 16;
                  return std::vector<u64>{Lo, Hi, Hi | (Lo << 16)};
                }));
  L.push_back(M("mov.b64.quarters", {"b64"}, {"b64"},
                "mov.b64 {%h0, %h1, %h2, %h3}, %a0;\n mov.b64 %d0, {%h3, %h2, %h1, %h0};",
                rows1({0x1122334455667788ull}), [](auto &R) {
                  u64 V = R[0];
                  return std::vector<u64>{(V >> 48) | ((V >> 16) & 0xffff0000ull) |
                                          ((V << 16) & 0xffff00000000ull) | (V << 48)};
                }));
  L.push_back(M("mov.pred", {"pred"}, {"pred", "pred"}, "mov.pred %d0, %a0;\n not.pred %d1, %a0;",
                rows1({0, 1}), [](auto &R) {
                  return std::vector<u64>{R[0], !R[0]};
                }));
  // The address of a .global variable with an initializer (9.7.9.1, 5.4).
  L.push_back(M(
      "mov.u64.global_address", {"u32"}, {"u32"},
      "mov.u64 %rd0, $tab;\n mul.wide.u32 %rd1, %a0, 4;\n add.u64 %rd0, %rd0, %rd1;\n"
      " ld.global.u32 %d0, [%rd0];",
      rows1({0, 1, 2, 3}),
      [](auto &R) {
        const uint32_t Tab[] = {10, 0xffffffff, 0x80000000, 7};
        return std::vector<u64>{Tab[R[0]]};
      },
      ".global .align 4 .u32 $tab[4] = {10, 0xffffffff, 0x80000000, 7};"));
  L.push_back(M(
      "cvta.generic_roundtrip", {"u32"}, {"u32", "u32", "u32", "u32"},
      "mov.u64 %rd0, $g;\n cvta.global.u64 %rd1, %rd0;\n ld.u32 %d0, [%rd1];\n"
      " cvta.to.global.u64 %rd2, %rd1;\n ld.global.u32 %d1, [%rd2+4];\n"
      " mov.u64 %rd3, $s;\n st.shared.u32 [%rd3], %a0;\n bar.sync 0;\n"
      " cvta.shared.u64 %rd4, %rd3;\n ld.u32 %d2, [%rd4];\n"
      " cvta.to.shared.u64 %rd5, %rd4;\n ld.shared.u32 %d3, [%rd5];",
      rows1({42}),
      [](auto &) {
        return std::vector<u64>{5, 6, 42, 42};
      },
      ".global .align 4 .u32 $g[2] = {5, 6};\n.shared .align 4 .u32 $s;"));
  L.push_back(M("cvta.local", {"u32"}, {"u32", "u32"},
                ".local .align 4 .u32 $loc;\n mov.u64 %rd0, $loc;\n st.local.u32 [%rd0], %a0;\n "
                "cvta.local.u64 %rd1, %rd0;\n"
                " ld.u32 %d0, [%rd1];\n cvta.to.local.u64 %rd2, %rd1;\n ld.local.u32 %d1, [%rd2];",
                rows1({3, 0xffffffff}), [](auto &R) {
                  return std::vector<u64>{R[0], R[0]};
                }));
  // isspacep (9.7.9.20) on generic addresses of each window.
  L.push_back(M(
      "isspacep", {"u32"}, {"u32"},
      ".local .align 4 .u32 $l;\n mov.u64 %rd0, $g;\n cvta.global.u64 %rd0, %rd0;\n"
      " mov.u64 %rd1, $s;\n cvta.shared.u64 %rd1, %rd1;\n mov.u64 %rd2, $l;\n"
      " cvta.local.u64 %rd2, %rd2;\n isspacep.global %p0, %rd0;\n"
      " isspacep.shared %p1, %rd1;\n isspacep.local %p2, %rd2;\n"
      " isspacep.global %p3, %rd1;\n selp.u32 %r0, 1, 0, %p0;\n selp.u32 %r1, 2, 0, %p1;\n"
      " selp.u32 %r2, 4, 0, %p2;\n selp.u32 %r3, 8, 0, %p3;\n or.b32 %r0, %r0, %r1;\n"
      " or.b32 %r0, %r0, %r2;\n or.b32 %d0, %r0, %r3;",
      rows1({0}), [](auto &) { return std::vector<u64>{7}; },
      ".global .align 4 .u32 $g;\n.shared .align 4 .u32 $s;"));
  L.push_back(M(
      "mov.u32.const_bank", {"u32"}, {"f32"},
      "mov.u64 %rd0, $c;\n mul.wide.u32 %rd1, %a0, 4;\n add.u64 %rd0, %rd0, %rd1;\n"
      " ld.const.f32 %d0, [%rd0];",
      rows1({0, 1, 2}),
      [](auto &R) {
        const float Tab[] = {1.5f, -0.0f, 3e38f};
        return std::vector<u64>{f32(Tab[R[0]])};
      },
      ".const .align 4 .f32 $c[3] = {0f3FC00000, 0f80000000, 0f7F61B1E6};"));
}

} // namespace reptx::conformance
