// The reptx intrinsics: the GPU operations of lifted IR, declared by name and defined by a
// backend for its target. All take and return i32 unless noted.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace reptx::ir::intrinsics {

// Special registers (PTX ISA 10, "Special Registers"): %tid, %ntid, %ctaid, %nctaid, each with
// .x/.y/.z, e.g. `i32 @reptx.tid.x()`. No side effects.
inline constexpr llvm::StringLiteral SpecialRegisters[] = {
    "reptx.tid.x",   "reptx.tid.y",    "reptx.tid.z",    "reptx.ntid.x",
    "reptx.ntid.y",  "reptx.ntid.z",   "reptx.ctaid.x",  "reptx.ctaid.y",
    "reptx.ctaid.z", "reptx.nctaid.x", "reptx.nctaid.y", "reptx.nctaid.z"};

// `void @reptx.barrier.sync()`: bar.sync 0 / barrier.sync 0 (PTX ISA 9.7.13.1): every thread of
// the CTA waits, and memory operations before it are visible to the CTA after it.
inline constexpr llvm::StringLiteral BarrierSync = "reptx.barrier.sync";

// Warp-level operations (PTX ISA 9.7.9.6, 9.7.13.3, 9.7.13.8-13), on 32-thread warps whatever the
// hardware: a backend confines them to the lanes of the calling thread's warp. Lane masks are i32
// with bit i for lane i; `mask` is the instruction's membermask. All are convergent and have
// inaccessible-memory effects (so nothing merges or moves them across control flow), except
// laneid.
//   i32  @reptx.laneid()                      %laneid (no side effects)
//   i32  @reptx.activemask()                  activemask.b32
//   i64  @reptx.shfl.{up,down,bfly,idx}(i32 a, i32 b, i32 c, i32 mask)
//                                             shfl.sync: d in bits 0-31, p in bit 32
//   i1   @reptx.vote.{all,any,uni}(i1 p, i32 mask)
//   i32  @reptx.vote.ballot(i1 p, i32 mask)
//   i32  @reptx.match.any.{b32,b64}(i32|i64 v, i32 mask)
//   i64  @reptx.match.all.{b32,b64}(i32|i64 v, i32 mask)   lane mask in bits 0-31, p in bit 32
//   i32  @reptx.redux.{add,umin,umax,smin,smax,and,or,xor}(i32 v, i32 mask)
//   i32  @reptx.elect(i32 mask)               the laneid of the elected (lowest active) lane
//   void @reptx.warp.sync(i32 mask)           bar.warp.sync
inline constexpr llvm::StringLiteral LaneId = "reptx.laneid";

// Other special registers (PTX ISA 10.12-10.25): `i64 @reptx.clock64()` (the hardware cycle
// counter; %clock is its low half), `i64 @reptx.globaltimer()` (nanoseconds), `i32 @reptx.smid()`,
// `i32 @reptx.nsmid()`, `i64 @reptx.gridid()`, `i32 @reptx.dynamic_smem_size()` and
// `i32 @reptx.total_smem_size()` (bytes of shared memory of the CTA: launch-time part, total).
inline constexpr llvm::StringLiteral Clock64 = "reptx.clock64";
inline constexpr llvm::StringLiteral GlobalTimer = "reptx.globaltimer";
inline constexpr llvm::StringLiteral SmId = "reptx.smid";
inline constexpr llvm::StringLiteral NSmId = "reptx.nsmid";
inline constexpr llvm::StringLiteral GridId = "reptx.gridid";
inline constexpr llvm::StringLiteral DynamicSmemSize = "reptx.dynamic_smem_size";
inline constexpr llvm::StringLiteral TotalSmemSize = "reptx.total_smem_size";

// Named barriers and barrier reductions (PTX ISA 9.7.13.1), with id (0-15), thread count (0 =
// the whole CTA) and the CTA's thread count:
//   void @reptx.barrier.sync.count(i32 id, i32 count, i32 cta)   bar.sync a, b
//   void @reptx.barrier.arrive(i32 id, i32 count, i32 cta)       bar.arrive a, b
//   i64  @reptx.barrier.red(i32 id, i32 count, i32 cta, i1 p)    bar.red: the number of
//        participants with p true in bits 0-31, the number of participants in bits 32-63.
// A module that uses them gets `void @reptx.barrier.init()` at the start of every kernel (before
// any thread can reach a named barrier), where a backend can set up barrier state.
inline constexpr llvm::StringLiteral BarrierSyncCount = "reptx.barrier.sync.count";
inline constexpr llvm::StringLiteral BarrierArrive = "reptx.barrier.arrive";
inline constexpr llvm::StringLiteral BarrierRed = "reptx.barrier.red";
inline constexpr llvm::StringLiteral BarrierInit = "reptx.barrier.init";

// `void @reptx.nanosleep(i32 ns)`: nanosleep.u32 (PTX ISA 9.7.19.2): the calling thread sleeps for
// a time in [0, 2 * ns] nanoseconds (ns is at most 1,000,000).
inline constexpr llvm::StringLiteral NanoSleep = "reptx.nanosleep";
// `i1 @reptx.isspacep.{global,const,shared,local}(ptr p)`: isspacep (PTX ISA 9.7.9.19): whether
// the generic address p lies in that state space's window. No side effects.
inline constexpr llvm::StringLiteral IsSpacePrefix = "reptx.isspacep.";
// Sync scopes: atomics, fences and ordered loads/stores carry PTX's scope as an LLVM sync scope
// named "cta", "cluster" or "gpu" (.sys is LLVM's system scope); a backend maps them to its own
// (AMDGPU: workgroup, agent, agent). An atom without a scope is .gpu (PTX ISA 8.5).
inline constexpr llvm::StringLiteral ScopeCta = "cta";
inline constexpr llvm::StringLiteral ScopeCluster = "cluster";
inline constexpr llvm::StringLiteral ScopeGpu = "gpu";

// `void @reptx.assertfail()`: CUDA's device-side assert failed (the `__assertfail` system call):
// the kernel stops with an error. Does not return. Before it, the lifter prints CUDA's assertion
// message through @reptx.vprintf (below) with AssertFormat and the arguments file, line,
// function, %ctaid.x/y/z, %tid.x/y/z, message; a loader recognises a failed assert by the format.
inline constexpr llvm::StringLiteral AssertFail = "reptx.assertfail";
inline constexpr llvm::StringLiteral AssertFormat =
    "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n";

// `i32 @reptx.vprintf(i64 format, i64 args)`: CUDA's device printf (the `vprintf` system call):
// the generic addresses of the format string and of the argument buffer (the arguments packed
// with their natural alignment, int-sized ones promoted to 4 bytes, float to double; 0 when
// there are none). Returns what the call's return parameter receives. A backend records the call
// for the host to print (backend/README.md, "Device printf").
inline constexpr llvm::StringLiteral Vprintf = "reptx.vprintf";

// `i64 @reptx.malloc(i64 size)` and `void @reptx.free(i64 ptr)`: CUDA's device-side malloc and
// free (the `malloc`/`free` system calls that `new` and `delete` in device code call): the
// generic address of at least size bytes aligned to 16, 0 when the heap has no room; free(0) does
// nothing. A backend allocates from a heap a loader provides (backend/README.md, "Device malloc").
// mbarrier objects in shared memory (PTX ISA 9.7.13.15), CTA scope; the 64-bit object's layout
// is the backend's (an object only ever goes through these):
//   void @reptx.mbarrier.init(ptr addrspace(3) bar, i32 count)
//   i64  @reptx.mbarrier.arrive(ptr addrspace(3) bar, i32 count, i1 drop): count arrivals (and,
//        with drop, count fewer expected in later phases), release ordering; returns the state
//        before them: the phase in bit 63, the pending arrivals in bits 0-19
//   i1   @reptx.mbarrier.test_wait(ptr addrspace(3) bar, i64 state): has the state's phase
//        completed (acquire ordering)
//   i1   @reptx.mbarrier.test_wait.parity(ptr addrspace(3) bar, i32 parity): has the phase of
//        that parity completed (the current phase has the other parity)
inline constexpr llvm::StringLiteral MbarrierInit = "reptx.mbarrier.init";
inline constexpr llvm::StringLiteral MbarrierArrive = "reptx.mbarrier.arrive";
inline constexpr llvm::StringLiteral MbarrierTestWait = "reptx.mbarrier.test_wait";
inline constexpr llvm::StringLiteral MbarrierTestWaitParity = "reptx.mbarrier.test_wait.parity";

// Warp-level matrix instructions (PTX ISA 9.7.14.5), convergent; every lane of the warp executes
// them together (.sync.aligned). The fragment layouts are the PTX ISA's ("Matrix Fragments for
// mma.m16n8k*", ".row.col"): the registers are passed and returned as the PTX instruction names
// them, so an NVPTX backend maps each call to one mma.sync/ldmatrix.
//   <4 x float> @reptx.mma.SHAPE.ATYPE.BTYPE(i32 a0, a1, a2, a3, i32 b0, b1, float c0..c3)
//        SHAPE.ATYPE: m16n8k16/m16n8k8 .f16/.bf16, m16n8k8/m16n8k4 .tf32, m16n8k32/m16n8k16 with
//        .e4m3/.e5m2 for each of A and B; f32 accumulators (f16 ones are converted around the
//        call); registers a shape does not have are 0
//   <4 x i32>   @reptx.mma.SHAPE.ATYPE.BTYPE[.satfinite](i32 a0..a3, i32 b0, b1, i32 c0..c3)
//        m16n8k32/m16n8k16 with .s8/.u8 for each of A and B, s32 accumulators
//   <2 x double> @reptx.mma.m8n8k4.f64.f64(double a, double b, double c0, double c1)
//   i32  @reptx.ldmatrix.b16(ptr addrspace(3) row, i32 m, i1 trans): the register of matrix m of
//        ldmatrix.m8n8.b16 [.trans], from the row addresses lanes 8m..8m+7 give (reads memory)
//   void @reptx.stmatrix.b16(ptr addrspace(3) row, i32 m, i32 v, i1 trans): stmatrix's store of
//        register v of matrix m (writes memory)
//   i32  @reptx.movmatrix.b16(i32 v): movmatrix.m8n8.trans.b16
// wmma has no intrinsics of its own: its fragments take the mma.sync layouts of the m16n8 tiles of
// its shape, and wmma.mma calls @reptx.mma per tile (ir/lib/LiftMatrix.cpp).
inline constexpr llvm::StringLiteral MmaPrefix = "reptx.mma.";
inline constexpr llvm::StringLiteral Ldmatrix = "reptx.ldmatrix.b16";
inline constexpr llvm::StringLiteral Stmatrix = "reptx.stmatrix.b16";
inline constexpr llvm::StringLiteral Movmatrix = "reptx.movmatrix.b16";

// Texture fetches (PTX ISA 9.7.10.3) on texture objects (unified texture mode: the handle is a
// 64-bit value, CUDA's cudaTextureObject_t):
//   <4 x i32> @reptx.tex.1d.fetch(i64 handle, i32 x): tex.1d.v4.{f32,s32,u32}.s32 (CUDA's
//        tex1Dfetch): the four channel registers of element x of a linear texture, as the
//        texture's format and read mode make them (the destination type only names how PTX
//        reads the bits). Reads memory only.
//   <4 x i32> @reptx.tex.sample(i64 handle, i32 dims, i32 layer, float x, float y, float z):
//        tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.f32 (CUDA's tex1D, tex2D, tex3D and their
//        Layered forms): the texture sampled at the first dims (1-3, a constant) coordinates,
//        in the given layer of a layered texture, with its descriptor's addressing, filtering
//        and read mode; the other coordinates are 0. Reads memory only.
//   <4 x i32> @reptx.tex.gather(i64 handle, i32 comp, i32 layer, float x, float y):
//        tld4.{r,g,b,a}.{2d,a2d} (CUDA's tex2Dgather): channel comp (0-3) of the four texels
//        of the bilinear footprint at (x, y). Reads memory only.
// Surface loads and stores (PTX ISA 9.7.11) on surface objects (the same 64-bit handles):
//   <4 x i32> @reptx.suld(i64 handle, i32 x, i32 y, i32 z, i32 elem_bytes, i32 count, i32 mode)
//        suld.b: count (1, 2, 4) elements of elem_bytes (1, 2, 4, 8) bytes at byte x of row y
//        of slice (or layer) z, their bytes in order; mode 0 .trap, 1 .clamp, 2 .zero for an
//        access outside the surface. Reads memory only.
//   void @reptx.sust(i64, i32 x, i32 y, i32 z, i32 elem_bytes, i32 count, i32 mode, <4 x i32>)
//        sust.b: the same access, storing the data's first bytes.
inline constexpr llvm::StringLiteral Tex1dFetch = "reptx.tex.1d.fetch";
inline constexpr llvm::StringLiteral TexSample = "reptx.tex.sample";
inline constexpr llvm::StringLiteral TexGather = "reptx.tex.gather";
inline constexpr llvm::StringLiteral Suld = "reptx.suld";
inline constexpr llvm::StringLiteral Sust = "reptx.sust";

inline constexpr llvm::StringLiteral Malloc = "reptx.malloc";
inline constexpr llvm::StringLiteral Free = "reptx.free";

// Directed rounding of add, sub, mul, fma (and mad), div, rcp and sqrt (PTX ISA 9.7.3), correctly
// rounded in the direction `mode` (llvm.set.rounding's encoding: 0 toward zero, 2 toward +inf, 3
// toward -inf) for every input, subnormals kept (.ftz is done by the lifter); rcp is div with
// a = 1.0. No side effects, and no dependence on a mode register.
//   float  @reptx.{add,sub,mul,div}.directed.f32(float a, float b, i32 mode)
//   double @reptx.{add,sub,mul,div}.directed.f64(double a, double b, i32 mode)
//   float  @reptx.fma.directed.f32(float a, float b, float c, i32 mode)
//   double @reptx.fma.directed.f64(double a, double b, double c, i32 mode)
//   float  @reptx.sqrt.directed.f32(float a, i32 mode)
//   double @reptx.sqrt.directed.f64(double a, i32 mode)
inline constexpr llvm::StringLiteral AddDirectedF32 = "reptx.add.directed.f32";
inline constexpr llvm::StringLiteral AddDirectedF64 = "reptx.add.directed.f64";
inline constexpr llvm::StringLiteral SubDirectedF32 = "reptx.sub.directed.f32";
inline constexpr llvm::StringLiteral SubDirectedF64 = "reptx.sub.directed.f64";
inline constexpr llvm::StringLiteral MulDirectedF32 = "reptx.mul.directed.f32";
inline constexpr llvm::StringLiteral MulDirectedF64 = "reptx.mul.directed.f64";
inline constexpr llvm::StringLiteral FmaDirectedF32 = "reptx.fma.directed.f32";
inline constexpr llvm::StringLiteral FmaDirectedF64 = "reptx.fma.directed.f64";
inline constexpr llvm::StringLiteral DivDirectedF32 = "reptx.div.directed.f32";
inline constexpr llvm::StringLiteral DivDirectedF64 = "reptx.div.directed.f64";
inline constexpr llvm::StringLiteral SqrtDirectedF32 = "reptx.sqrt.directed.f32";
inline constexpr llvm::StringLiteral SqrtDirectedF64 = "reptx.sqrt.directed.f64";

// Kernels launched from device code (CUDA dynamic parallelism): nvcc lowers `kernel<<<...>>>` and
// the CUDA API in device code to calls of the device runtime, libcudadevrt, whose PTX a -rdc
// program links; it rests on the system calls `__cuda_syscall_cnpv2<Name>`, which the driver
// provides. A call to one of DeviceRuntimeCalls becomes a call of `@reptx.cdp.<Name>` with the
// calling convention of lifted functions (one local-space pointer to each return and parameter
// slot, in that order, as ptxFunctionType), the slots holding the system call's own parameters;
// a backend defines them (backend/README.md, "Dynamic parallelism"). Calls of the others fail
// their kernel with the system call named.
inline constexpr llvm::StringLiteral DeviceRuntimeCallee = "__cuda_syscall_cnpv2";
inline constexpr llvm::StringLiteral DeviceRuntimePrefix = "reptx.cdp.";
struct DeviceRuntimeCall {
  llvm::StringLiteral Name; // without the __cuda_syscall_cnpv2 prefix
  unsigned Returns, Params;
};
inline constexpr DeviceRuntimeCall DeviceRuntimeCalls[] = {
    {"GetParameterBuffer", 1, 2},
    {"GetParameterBufferV2", 1, 4},
    {"LaunchDevice", 1, 6},
    {"LaunchDeviceV2", 1, 2},
    {"GetLastError", 1, 0},
    {"SetLastError", 1, 1},
    {"GetDevice", 1, 1},
    {"GetDeviceCount", 1, 1},
    {"StreamCreate", 1, 2},
    {"StreamDestroy", 1, 1},
    {"StreamWaitEvent", 1, 3},
    {"EventCreate", 1, 2},
    {"EventRecord", 1, 2},
    {"EventDestroy", 1, 1},
    {"DeviceGetAttribute", 1, 3},
    {"GetLimit", 1, 2},
    {"GetCacheConfig", 1, 1},
    {"GetSharedMemConfig", 1, 1},
    {"FuncGetAttribute", 1, 3},
    {"MaxActiveBlocksPerMultiprocessor", 1, 4},
    {"MaxActiveBlocksPerMultiprocessorWithFlags", 1, 5}};
/// The device runtime system call a callee names, or null.
inline const DeviceRuntimeCall *deviceRuntimeCall(llvm::StringRef Callee) {
  if (!Callee.consume_front(DeviceRuntimeCallee))
    return nullptr;
  for (const DeviceRuntimeCall &C : DeviceRuntimeCalls)
    if (C.Name == Callee)
      return &C;
  return nullptr;
}
// A kernel's address in device code (`mov.u64 %rd, kernel`: what a device-side launch passes) is
// the generic address of a constant NUL-terminated string, KernelAddressPrefix followed by the
// kernel's name, through which a loader finds the kernel.
inline constexpr llvm::StringLiteral KernelAddressPrefix = "\x7freptx.kernel:";

// `cudaGraphSetConditional(handle, value)` in device code (the condition of a conditional graph
// node) is a 32-bit store of value to the handle, which is a device address: a loader's
// cuGraphConditionalHandleCreate makes handles that way (loader/README.md, "Graphs and stream
// capture").
inline constexpr llvm::StringLiteral SetConditional = "cudaGraphSetConditional";

/// The external functions that the lifter implements itself (PTX ISA 7.1, "System calls", and
/// those of the device runtime and of graphs): no definition is linked for them.
inline bool isSystemCall(llvm::StringRef Name) {
  return Name == "vprintf" || Name == "malloc" || Name == "free" || Name == "__assertfail" ||
         Name == SetConditional || Name.starts_with(DeviceRuntimeCallee);
}

} // namespace reptx::ir::intrinsics
