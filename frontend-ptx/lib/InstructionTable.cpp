// The instruction table (PTX ISA manual 9.x, chapter 9). Each entry: opcode, category (the name of
// the lifting file that will handle it), manual section, operand count range, and the modifier
// groups in a compact notation:
//   name:v1,v2      an optional group: at most one of the values
//   !name:v1,v2     a required group: exactly one of the values
//   name*N:v1,...   up to N values from the group (cvt.f32.f16 has two types, dp4a.u32.s32 too)
//   flag            an optional single modifier spelled like its name (.ftz, .sat, .uni)
// Values are written without their leading dot. Modifiers may appear in any order (ptxas accepts
// non-canonical orders, and the corpus uses them); each must belong to a group of its family, and a
// group holds at most its count. Families whose modifier grammar is a long product of options
// (tensor-core, bulk-copy, texture, video) use one permissive group listing every modifier
// the manual defines for them.
#include "reptx/frontend-ptx/InstructionTable.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <mutex>

namespace reptx::ptx {

namespace {

#define INT16_64 "u16,u32,u64,s16,s32,s64"
#define HALFS "f16,f16x2,bf16,bf16x2"
#define FLOATS "f32,f64," HALFS
#define RND "rn,rz,rm,rp"
#define BITS "b8,b16,b32,b64,b128"
#define ALLSCALAR BITS ",u8," INT16_64 ",s8,f16,f16x2,bf16,bf16x2,f32,f64,pred,tf32"
#define CMP "eq,ne,lt,le,gt,ge,lo,ls,hi,hs,equ,neu,ltu,leu,gtu,geu,num,nan"
#define SPACES                                                                                     \
  "const,global,local,param,shared,shared::cta,shared::cluster,param::entry,param::func"
#define SCOPES "cta,cluster,gpu,sys"
// st has no .const and no .param::entry form: constant memory and kernel parameters are read-only.
#define STSPACES "global,local,param,shared,shared::cta,shared::cluster,param::func"
#define CVTTYPES                                                                                   \
  "u8,u16,u32,u64,s8,s16,s32,s64,b8,b16,b32,b64,f16,f32,f64,bf16,f16x2,bf16x2,tf32,e4m3,e5m2,"     \
  "e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2,ue8m0x2,s2f6x2,e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4"
#define L1EVICT                                                                                    \
  "L1::evict_normal,L1::evict_unchanged,L1::evict_first,L1::evict_last,L1::no_allocate"
#define L2EVICT "L2::evict_normal,L2::evict_first,L2::evict_last"
#define L2PREFETCH "L2::64B,L2::128B,L2::256B"
#define MEMTYPES BITS ",u8,u16,u32,u64,s8,s16,s32,s64,f16,f16x2,bf16,bf16x2,f32,f64"
#define MMA_MODS                                                                                   \
  "sync,aligned,row,col,satfinite,sp,sp::ordered_metadata,kind::f16,kind::f8f6f4,kind::mxf8f6f4,"  \
  "kind::i8,kind::tf32,kind::mxf4,kind::mxf4nvf4,block_scale,scale_vec::1X,scale_vec::2X,"         \
  "scale_vec::4X,ue8m0,ue4m3,m8n8k4,m8n8k16,m8n8k32,m8n8k128,m16n8k4,m16n8k8,m16n8k16,m16n8k32,"   \
  "m16n8k64,m16n8k128,m16n8k256,m16n16k16,m32n8k16,m8n32k16,m16n16k8,m8n8k64,f16,f32,f64,bf16,"    \
  "tf32,s8,u8,s4,u4,b1,s32,e4m3,e5m2,e3m2,e2m3,e2m1,xor,and,popc,a,b,c,d,load,store,mma,shared,"   \
  "shared::cta,global,relu,abs,NaN,rn,rz,rm,rp"
#define WGMMA_MODS                                                                                 \
  "sync,aligned,fence,commit_group,wait_group,mma_async,sp,satfinite,f16,f32,bf16,tf32,e4m3,"      \
  "e5m2,s8,u8,s32,b1,and,popc," WGMMA_SHAPES
#define WGMMA_SHAPES                                                                               \
  "m64n8k16,m64n16k16,m64n24k16,m64n32k16,m64n40k16,m64n48k16,m64n56k16,m64n64k16,m64n72k16,"      \
  "m64n80k16,m64n88k16,m64n96k16,m64n104k16,m64n112k16,m64n120k16,m64n128k16,m64n136k16,"          \
  "m64n144k16,m64n152k16,m64n160k16,m64n168k16,m64n176k16,m64n184k16,m64n192k16,m64n200k16,"       \
  "m64n208k16,m64n216k16,m64n224k16,m64n232k16,m64n240k16,m64n248k16,m64n256k16,m64n8k8,"          \
  "m64n16k8,m64n32k8,m64n64k8,m64n128k8,m64n256k8,m64n8k32,m64n16k32,m64n32k32,m64n64k32,"         \
  "m64n128k32,m64n256k32,m64n8k256,m64n16k256,m64n32k256,m64n64k256,m64n128k256,m64n256k256"
#define BULK_MODS                                                                                  \
  "async,shared,local,wait_all,bulk,tensor,reduce,prefetch,commit_group,wait_group,wait_group."    \
  "read,read,1d,2d,3d,4d,5d,"                                                                      \
  "tile,im2col,im2col::w,im2col::w::128,im2col_no_offs,tile::gather4,tile::scatter4,"              \
  "shared::cluster,shared::cta,global,mbarrier::complete_tx::bytes,bulk_group,multicast::cluster," \
  "L2::cache_hint,cta_group::1,cta_group::2,add,min,max,inc,dec,and,or,xor,f16,bf16,f32,f64,u32,"  \
  "s32,u64,s64,b32,b64,noftz,cp_mask,ca,cg,L2::64B,L2::128B,L2::256B,mbarrier,arrive,noinc,"       \
  "load_mode,L2::evict_last,L2::evict_first,L2::evict_normal,L2::evict_unchanged,ignore_oob"
#define TEX_MODS                                                                                   \
  "1d,2d,3d,a1d,a2d,cube,acube,2dms,a2dms,v2,v4,f32,f16,s32,u32,b32,b8,b16,b64,level,grad,base,"   \
  "r,g,b,a,width,height,depth,channel_data_type,channel_order,normalized_coords,filter_mode,"      \
  "addr_mode_0,addr_mode_1,addr_mode_2,force_unnormalized_coords,num_samples,num_mipmap_levels,"   \
  "array_size,memory_layout,trap,clamp,zero,add,min,max,inc,dec,and,or,xor,u64,s64,b,p,texref,"    \
  "samplerref,surfref"
#define VIDEO_MODS                                                                                 \
  "u32,s32,sat,add,min,max,b0,b1,b2,b3,h0,h1,clamp,wrap,eq,ne,lt,le,gt,ge,po,shr7,shr15,"          \
  "u16,s16,u8,s8"

struct Spec {
  const char *Opcode, *Category, *Section;
  unsigned MinOps, MaxOps;
  const char *Groups;
};

// clang-format off
const Spec Specs[] = {
  // 9.7.1 Integer arithmetic (and the shared float/half forms of add, sub, mul, mad, min, max)
  {"add", "integer", "9.7.1.1", 3, 3, "!type:" INT16_64 ",u16x2,s16x2," FLOATS ",f32x2 rnd:" RND " ftz sat cc"},
  {"sub", "integer", "9.7.1.2", 3, 3, "!type:" INT16_64 ",u16x2,s16x2," FLOATS ",f32x2 rnd:" RND " ftz sat cc"},
  {"mul", "integer", "9.7.1.3", 3, 3, "!type:" INT16_64 "," FLOATS ",f32x2 mode:hi,lo,wide rnd:" RND " ftz sat"},
  {"mad", "integer", "9.7.1.4", 4, 4, "!type:" INT16_64 "," FLOATS " mode:hi,lo,wide rnd:" RND " ftz sat cc"},
  {"mul24", "integer", "9.7.1.5", 3, 3, "!mode:hi,lo !type:u32,s32"},
  {"mad24", "integer", "9.7.1.6", 4, 4, "!mode:hi,lo !type:u32,s32 sat"},
  {"sad", "integer", "9.7.1.7", 4, 4, "!type:" INT16_64},
  {"div", "integer", "9.7.1.8", 3, 3, "!type:" INT16_64 ",f32,f64 rnd:" RND ",approx,full ftz"},
  {"rem", "integer", "9.7.1.9", 3, 3, "!type:" INT16_64},
  {"abs", "integer", "9.7.1.10", 2, 2, "!type:s16,s32,s64," FLOATS " ftz relu"},
  {"neg", "integer", "9.7.1.11", 2, 2, "!type:s16,s32,s64," FLOATS " ftz"},
  {"min", "integer", "9.7.1.12", 3, 4, "!type:" INT16_64 ",u16x2,s16x2," FLOATS " relu ftz NaN xorsign abs"},
  {"max", "integer", "9.7.1.13", 3, 4, "!type:" INT16_64 ",u16x2,s16x2," FLOATS " relu ftz NaN xorsign abs"},
  {"popc", "integer", "9.7.1.14", 2, 2, "!type:b32,b64"},
  {"clz", "integer", "9.7.1.15", 2, 2, "!type:b32,b64"},
  {"bfind", "integer", "9.7.1.16", 2, 2, "!type:u32,u64,s32,s64 shiftamt"},
  {"fns", "integer", "9.7.1.17", 4, 4, "!type:b32"},
  {"brev", "integer", "9.7.1.18", 2, 2, "!type:b32,b64"},
  {"bfe", "integer", "9.7.1.19", 4, 4, "!type:u32,u64,s32,s64"},
  {"bfi", "integer", "9.7.1.20", 5, 5, "!type:b32,b64"},
  {"szext", "integer", "9.7.1.21", 3, 3, "!mode:clamp,wrap !type:u32,s32"},
  {"bmsk", "integer", "9.7.1.22", 3, 3, "!mode:clamp,wrap !type:b32"},
  {"dp4a", "integer", "9.7.1.23", 4, 4, "!type*2:u32,s32"},
  {"dp2a", "integer", "9.7.1.24", 4, 4, "!mode:lo,hi !type*2:u32,s32"},
  // 9.7.2 Extended-precision integer arithmetic
  {"addc", "integer", "9.7.2.2", 3, 3, "!type:u32,s32,u64,s64 cc"},
  {"subc", "integer", "9.7.2.4", 3, 3, "!type:u32,s32,u64,s64 cc"},
  {"madc", "integer", "9.7.2.6", 4, 4, "!type:u32,s32,u64,s64 !mode:hi,lo cc"},
  // 9.7.3 Floating point
  {"testp", "float", "9.7.3.1", 2, 2, "!op:finite,infinite,number,notanumber,normal,subnormal !type:f32,f64"},
  {"copysign", "float", "9.7.3.2", 3, 3, "!type:f32,f64"},
  {"fma", "float", "9.7.3.6", 4, 4, "!type:" FLOATS ",f32x2 rnd:" RND " ftz sat relu oob"},
  {"rcp", "float", "9.7.3.8", 2, 2, "!type:f32,f64 rnd:" RND ",approx ftz"},
  {"sqrt", "float", "9.7.3.10", 2, 2, "!type:f32,f64 rnd:" RND ",approx ftz"},
  {"rsqrt", "float", "9.7.3.11", 2, 2, "!type:f32,f64 !approx ftz"},
  {"sin", "float", "9.7.3.13", 2, 2, "!type:f32 !approx ftz"},
  {"cos", "float", "9.7.3.14", 2, 2, "!type:f32 !approx ftz"},
  {"lg2", "float", "9.7.3.15", 2, 2, "!type:f32 !approx ftz"},
  {"ex2", "float", "9.7.3.16", 2, 2, "!type:f32," HALFS " !approx ftz"},
  {"tanh", "float", "9.7.3.17", 2, 2, "!type:f32," HALFS " !approx"},
  // 9.7.6-9.7.7 Comparison and selection
  {"set", "compare", "9.7.6.1", 3, 4, "!cmp:" CMP " bool:and,or,xor ftz !type*2:" ALLSCALAR},
  {"setp", "compare", "9.7.6.2", 3, 4, "!cmp:" CMP " bool:and,or,xor ftz !type:" ALLSCALAR},
  {"selp", "compare", "9.7.6.3", 4, 4, "!type:" ALLSCALAR},
  {"slct", "compare", "9.7.6.4", 4, 4, "!type*2:" ALLSCALAR " ftz"},
  // 9.7.8 Logic and shift
  {"and", "logic", "9.7.8.1", 3, 3, "!type:pred,b16,b32,b64"},
  {"or", "logic", "9.7.8.2", 3, 3, "!type:pred,b16,b32,b64"},
  {"xor", "logic", "9.7.8.3", 3, 3, "!type:pred,b16,b32,b64"},
  {"not", "logic", "9.7.8.4", 2, 2, "!type:pred,b16,b32,b64"},
  {"cnot", "logic", "9.7.8.5", 2, 2, "!type:b16,b32,b64"},
  {"lop3", "logic", "9.7.8.6", 5, 6, "!type:b32 bool:and,or"},
  {"shf", "logic", "9.7.8.7", 4, 4, "!dir:l,r !mode:clamp,wrap !type:b32"},
  {"shl", "logic", "9.7.8.8", 3, 3, "!type:b16,b32,b64"},
  {"shr", "logic", "9.7.8.9", 3, 3, "!type:b16,b32,b64," INT16_64},
  // 9.7.9 Data movement and conversion
  {"mov", "move", "9.7.9.1", 2, 2, "!type:" ALLSCALAR " vec:v2,v4"},
  {"shfl", "warp", "9.7.9.6", 4, 5, "sync !mode:up,down,bfly,idx !type:b32"},
  {"prmt", "integer", "9.7.9.7", 4, 4, "!type:b32 mode:f4e,b4e,rc8,ecl,ecr,rc16"},
  {"ld", "memory", "9.7.9.8", 2, 3, "space:" SPACES " weak volatile sem:relaxed,acquire,mmio scope:" SCOPES " nc cop:ca,cg,cs,lu,cv l1:" L1EVICT " l2:" L2EVICT " prefetch:" L2PREFETCH " L2::cache_hint unified vec:v2,v4,v8 !type:" MEMTYPES},
  {"ldu", "memory", "9.7.9.9", 2, 2, "space:global vec:v2,v4 !type:" MEMTYPES},
  {"st", "memory", "9.7.9.10", 2, 3, "space:" STSPACES " weak volatile sem:relaxed,release,mmio scope:" SCOPES " cop:wb,cg,cs,wt l1:" L1EVICT " l2:" L2EVICT " L2::cache_hint async mbarrier::complete_tx::bytes vec:v2,v4,v8 !type:" MEMTYPES},
  {"multimem", "memory", "9.7.9.13", 2, 3, "any*12:ld_reduce,st,red,cp,async,bulk,weak,relaxed,acquire,release,cta,cluster,gpu,sys,global,shared::cta,add,min,max,and,or,xor,acc::f32,acc::f16,v2,v4,v8,f16,f16x2,bf16,bf16x2,f32,f64,u32,s32,u64,s64,b32,b64,e4m3x4,e5m2x4,e4m3,e5m2"},
  {"prefetch", "memory", "9.7.9.15", 1, 1, "space:global,local,const,param level:L1,L2 L2::evict_last,L2::evict_normal tensormap"},
  {"prefetchu", "memory", "9.7.9.15", 1, 1, "!level:L1"},
  {"applypriority", "memory", "9.7.9.16", 2, 2, "space:global !level:L2::evict_normal"},
  {"discard", "memory", "9.7.9.17", 2, 2, "space:global !level:L2 L2::evict_normal"},
  {"createpolicy", "memory", "9.7.9.18", 1, 4, "any*6:fractional,range,cvt,global,L2,L2::evict_last,L2::evict_normal,L2::evict_first,L2::evict_unchanged,b64"},
  {"isspacep", "memory", "9.7.9.19", 2, 2, "!space:" SPACES},
  {"cvta", "memory", "9.7.9.20", 2, 2, "to !space:" SPACES " !type:u32,u64"},
  {"cvt", "convert", "9.7.9.21", 2, 4, "rnd:" RND ",rni,rzi,rmi,rpi,rna,rs ftz sat satfinite relu pack !type*3:" CVTTYPES},
  {"mapa", "memory", "9.7.9.23", 3, 3, "space:shared::cluster !type:u32,u64"},
  {"getctarank", "memory", "9.7.9.24", 2, 2, "space:shared::cluster !type:u32,u64"},
  {"cp", "memory", "9.7.9.25", 0, 6, "any*16:" BULK_MODS},
  {"tensormap", "memory", "9.7.9.26", 2, 4, "any*8:replace,cp_fenceproxy,tile,global,shared::cta,global,tensormap::generic,release,acquire,cta,cluster,gpu,sys,sync,aligned,b1024,b128,b64,b32,global_address,rank,box_dim,global_dim,global_stride,element_stride,elemtype,interleave_layout,swizzle_mode,swizzle_atomicity,fill_mode"},
  {"ldmatrix", "matrix", "9.7.14.5.15", 2, 2, "sync aligned !shape:m8n8,m16n16,m8n16 !num:x1,x2,x4 trans space:shared,shared::cta !type:b16,b8,b8x16.b6x16_p32,b8x16.b4x16_p64"},
  {"stmatrix", "matrix", "9.7.14.5.16", 2, 2, "sync aligned !shape:m8n8,m16n8 !num:x1,x2,x4 trans space:shared,shared::cta !type:b16,b8"},
  {"movmatrix", "matrix", "9.7.14.5.17", 2, 2, "sync aligned !shape:m8n8 trans !type:b16"},
  // 9.7.10-9.7.11 Texture and surface
  {"tex", "texture", "9.7.10.3", 2, 6, "any*8:" TEX_MODS},
  {"tld4", "texture", "9.7.10.4", 2, 6, "any*8:" TEX_MODS},
  {"txq", "texture", "9.7.10.5", 2, 3, "any*4:" TEX_MODS},
  {"istypep", "texture", "9.7.10.6", 2, 2, "!type:texref,samplerref,surfref"},
  {"suld", "texture", "9.7.11.1", 2, 2, "any*6:" TEX_MODS},
  {"sust", "texture", "9.7.11.2", 2, 2, "any*6:" TEX_MODS},
  {"sured", "texture", "9.7.11.3", 2, 2, "any*6:" TEX_MODS},
  {"suq", "texture", "9.7.11.4", 2, 2, "any*4:" TEX_MODS},
  // 9.7.12 Control flow
  {"bra", "control", "9.7.12.2", 1, 1, "uni"},
  {"brx", "control", "9.7.12.3", 2, 2, "!idx uni"},
  {"call", "control", "9.7.12.4", 1, 4, "uni"},
  {"ret", "control", "9.7.12.5", 0, 0, "uni"},
  {"exit", "control", "9.7.12.6", 0, 0, ""},
  // 9.7.13 Parallel synchronization and communication
  {"bar", "barrier", "9.7.13.1", 0, 4, "cta !op*2:sync,arrive,red,warp aligned redop:popc,and,or type:u32,pred"},
  {"barrier", "barrier", "9.7.13.1", 0, 4, "cta op:sync,arrive,red,wait cluster aligned redop:popc,and,or type:u32,pred sem:release,relaxed,acquire"},
  {"membar", "barrier", "9.7.13.4", 0, 0, "!level:cta,gl,sys,proxy"},
  {"fence", "barrier", "9.7.13.4", 0, 2, "any*8:sc,acq_rel,acquire,release,relaxed,cta,cluster,gpu,sys,proxy,alias,async,async::generic,async::global,async::shared::cta,async::shared::cluster,shared::cta,shared::cluster,global,tensormap::generic,mbarrier_init,op_restrict,sync_restrict::shared::cta,sync_restrict::shared::cluster"},
  {"atom", "atomic", "9.7.13.5", 3, 5, "space:global,shared,shared::cta,shared::cluster sem:relaxed,acquire,release,acq_rel scope:" SCOPES " !op:and,or,xor,cas,exch,add,inc,dec,min,max noftz vec:v2,v4,v8 L2::cache_hint !type:b16,b32,b64,b128,u32,u64,s32,s64,f32,f64," HALFS},
  {"red", "atomic", "9.7.13.6", 2, 3, "space:global,shared,shared::cta,shared::cluster sem:relaxed,release scope:" SCOPES " !op:and,or,xor,add,inc,dec,min,max noftz vec:v2,v4,v8 L2::cache_hint async mbarrier::complete_tx::bytes !type:b32,b64,u32,u64,s32,s64,f32,f64," HALFS},
  {"vote", "warp", "9.7.13.8", 2, 3, "sync !mode:all,any,uni,ballot !type:pred,b32"},
  {"match", "warp", "9.7.13.9", 3, 4, "sync !mode:any,all !type:b32,b64"},
  {"activemask", "warp", "9.7.13.10", 1, 1, "!type:b32"},
  {"redux", "warp", "9.7.13.11", 3, 3, "sync !op:add,min,max,and,or,xor abs NaN !type:u32,s32,b32,f32"},
  {"griddepcontrol", "barrier", "9.7.13.12", 0, 0, "!op:launch_dependents,wait"},
  {"elect", "warp", "9.7.13.13", 2, 2, "!sync"},
  {"mbarrier", "barrier", "9.7.13.15", 1, 4, "any*8:init,inval,expect_tx,complete_tx,arrive,arrive_drop,test_wait,try_wait,pending_count,parity,noComplete,release,acquire,relaxed,cta,cluster,shared,shared::cta,shared::cluster,b64"},
  {"setmaxnreg", "barrier", "9.7.19.5", 1, 1, "!op:inc,dec sync aligned !type:u32"},
  {"clusterlaunchcontrol", "barrier", "9.7.13.17", 1, 3, "any*8:try_cancel,query_cancel,async,shared::cta,mbarrier::complete_tx::bytes,multicast::cluster::all,b128,is_canceled,get_first_ctaid,get_first_ctaid::x,get_first_ctaid::y,get_first_ctaid::z,pred,v4,b32"},
  // 9.7.14-9.7.16 Warp- and warpgroup-level matrix operations
  {"wmma", "matrix", "9.7.14.4", 2, 4, "any*16:" MMA_MODS},
  {"mma", "matrix", "9.7.14.5", 4, 8, "any*16:" MMA_MODS},
  {"wgmma", "matrix", "9.7.15.5", 0, 10, "any*10:" WGMMA_MODS},
  {"tcgen05", "matrix", "9.7.16", 0, 10, "any*12:alloc,dealloc,relinquish_alloc_permit,ld,st,wait,wait::ld,wait::st,cp,shift,mma,commit,fence,before_thread_sync,after_thread_sync,cta_group::1,cta_group::2,sync,aligned,shared::cta,shared::cluster,b32,b64,b128,pack::16b,unpack::16b,16x64b,16x128b,16x256b,32x32b,16x32bx2,x1,x2,x4,x8,x16,x32,x64,x128,128x256b,4x256b,128x128b,64x128b,warpx2::02_13,warpx2::01_23,warpx4,b8x16,b6x16_p32,b4x16_p64,down,kind::f16,kind::tf32,kind::f8f6f4,kind::i8,kind::mxf8f6f4,kind::mxf4,kind::mxf4nvf4,block_scale,scale_vec::1X,scale_vec::2X,scale_vec::4X,ws,collector::a::fill,collector::a::use,collector::a::lastuse,collector::a::discard,mbarrier::arrive::one,multicast::cluster,sp"},
  // 9.7.17 Video instructions
  {"vadd", "video", "9.7.17.1", 3, 4, "any*6:" VIDEO_MODS}, {"vsub", "video", "9.7.17.1", 3, 4, "any*6:" VIDEO_MODS},
  {"vabsdiff", "video", "9.7.17.1", 3, 4, "any*6:" VIDEO_MODS}, {"vmin", "video", "9.7.17.1", 3, 4, "any*6:" VIDEO_MODS},
  {"vmax", "video", "9.7.17.1", 3, 4, "any*6:" VIDEO_MODS}, {"vshl", "video", "9.7.17.2", 3, 4, "any*6:" VIDEO_MODS},
  {"vshr", "video", "9.7.17.2", 3, 4, "any*6:" VIDEO_MODS}, {"vmad", "video", "9.7.17.3", 4, 4, "any*6:" VIDEO_MODS},
  {"vset", "video", "9.7.17.4", 3, 4, "any*6:" VIDEO_MODS},
  {"vadd2", "video", "9.7.17.5", 4, 4, "any*6:" VIDEO_MODS}, {"vsub2", "video", "9.7.17.5", 4, 4, "any*6:" VIDEO_MODS},
  {"vavrg2", "video", "9.7.17.5", 4, 4, "any*6:" VIDEO_MODS}, {"vabsdiff2", "video", "9.7.17.5", 4, 4, "any*6:" VIDEO_MODS},
  {"vmin2", "video", "9.7.17.5", 4, 4, "any*6:" VIDEO_MODS}, {"vmax2", "video", "9.7.17.5", 4, 4, "any*6:" VIDEO_MODS},
  {"vset2", "video", "9.7.17.5", 4, 4, "any*6:" VIDEO_MODS},
  {"vadd4", "video", "9.7.17.6", 4, 4, "any*6:" VIDEO_MODS}, {"vsub4", "video", "9.7.17.6", 4, 4, "any*6:" VIDEO_MODS},
  {"vavrg4", "video", "9.7.17.6", 4, 4, "any*6:" VIDEO_MODS}, {"vabsdiff4", "video", "9.7.17.6", 4, 4, "any*6:" VIDEO_MODS},
  {"vmin4", "video", "9.7.17.6", 4, 4, "any*6:" VIDEO_MODS}, {"vmax4", "video", "9.7.17.6", 4, 4, "any*6:" VIDEO_MODS},
  {"vset4", "video", "9.7.17.6", 4, 4, "any*6:" VIDEO_MODS},
  // 9.7.19 Miscellaneous
  {"brkpt", "control", "9.7.19.1", 0, 0, ""},
  {"nanosleep", "barrier", "9.7.19.2", 1, 1, "!type:u32"},
  {"pmevent", "control", "9.7.19.3", 1, 1, "mask"},
  {"trap", "control", "9.7.19.4", 0, 0, ""},
};
// Operand kinds, one letter per operand position; the last letter also covers further operands.
// A '?' after a letter makes the position optional: an operand of another kind is checked against
// the next letter instead.
//   d  scalar destination: a register, '_' or a predicate pair p|q
//   D  destination that may also be a vector {a, b}
//   V  like D, the value of a memory access: no register narrower than the instruction type
//      (PTX ISA "Operand Size Exceeding Instruction-Type Size": wider registers are allowed,
//      narrower ones are not, and ptxas rejects them)
//   s  scalar source: a register, variable, constant or constant expression
//   S  source that may also be a vector
//   W  like S, the value of a memory access: no register narrower than the instruction type
//   a  address [...]
//   n  name (function, prototype, jump table, or a register holding an address)
//   L  label: a name that is not a register or variable
//   l  parenthesized list (a, b)
//   *  anything
// Families not listed (tensor-core, bulk tensor, mbarrier, barriers, video...) have forms too
// varied for one string. A third field lists modifiers of forms the string does not describe.
struct OperandSpec {
  const char *Opcodes, *Kinds, *Except;
};
const OperandSpec OperandSpecs[] = {
  {"add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind fns brev bfe bfi szext "
   "bmsk dp4a dp2a addc subc madc testp copysign fma rcp sqrt rsqrt sin cos lg2 ex2 tanh set setp "
   "selp slct and or xor not cnot lop3 shf shl shr prmt cvta isspacep mapa getctarank activemask "
   "vote match redux shfl elect movmatrix istypep", "ds", ""},
  {"cvt", "dS", ""}, // cvt.rs.satfinite.e4m3x4.f32 d, {a, b, e, f}, rbits
  {"mov", "DS", ""}, // mov.b64 {lo, hi}, x and mov.b64 x, {lo, hi}
  {"ld", "Vas", ""}, // the third operand is a cache policy
  {"ldu", "Va", ""},
  {"st", "aW*", ""}, // st.async has a third address (the mbarrier), st.L2::cache_hint a policy
  {"atom", "VaS", ""},
  {"red", "aW*", ""},
  {"cp", "aa*", "wait_group,wait_all,commit_group,prefetch"}, // wait_group N; prefetch [a], size
  {"prefetch prefetchu", "a", ""},
  {"applypriority discard", "as", ""},
  {"ldmatrix", "Da", ""},
  {"stmatrix", "aS", ""},
  {"tex tld4", "Da*", ""},
  {"suld", "Da", ""},
  {"sust sured", "aS", ""},
  {"txq suq", "da*", ""},
  {"bra", "L", ""},
  {"brx", "sn", ""},
  {"call", "l?nl?n", ""}, // call (ret), f, (args), proto
  {"nanosleep pmevent setmaxnreg", "s", ""},
};
// clang-format on

std::vector<std::string> splitValues(llvm::StringRef S) {
  std::vector<std::string> Out;
  llvm::SmallVector<llvm::StringRef> Parts;
  S.split(Parts, ',', -1, false);
  for (llvm::StringRef P : Parts)
    Out.push_back("." + P.str());
  return Out;
}

struct Table {
  std::vector<InstructionFamily> Families;
  llvm::StringMap<unsigned> ByOpcode;
  std::vector<llvm::StringMap<int>> GroupIndex;
};

const Table &table() {
  static Table *T = [] {
    auto *T = new Table;
    for (const Spec &S : Specs) {
      InstructionFamily F;
      F.Opcode = S.Opcode;
      F.Category = S.Category;
      F.Section = S.Section;
      F.MinOps = S.MinOps;
      F.MaxOps = S.MaxOps;
      llvm::SmallVector<llvm::StringRef> Groups;
      llvm::StringRef(S.Groups).split(Groups, ' ', -1, false);
      llvm::StringMap<int> Index;
      for (llvm::StringRef G : Groups) {
        ModifierGroup MG;
        MG.Required = G.consume_front("!");
        // The group name ends at the first ':' that is not part of a '::' inside a value.
        size_t Colon = 0;
        while ((Colon = G.find(':', Colon)) != llvm::StringRef::npos && Colon + 1 < G.size() &&
               G[Colon + 1] == ':')
          Colon += 2;
        llvm::StringRef Head = G.substr(0, Colon);
        llvm::StringRef Values = Colon == llvm::StringRef::npos ? "" : G.substr(Colon + 1);
        unsigned Count = 1;
        if (auto [Name, N] = Head.split('*'); !N.empty()) {
          Head = Name;
          N.getAsInteger(10, Count);
        }
        MG.Name = Head.str();
        MG.Values = splitValues(Values.empty() ? Head : Values);
        for (const std::string &V : MG.Values)
          Index.try_emplace(V, int(F.Groups.size()));
        MG.Max = Count;
        F.Groups.push_back(std::move(MG));
      }
      T->ByOpcode.try_emplace(F.Opcode, T->Families.size());
      T->Families.push_back(std::move(F));
      T->GroupIndex.push_back(std::move(Index));
    }
    for (const OperandSpec &O : OperandSpecs) {
      llvm::SmallVector<llvm::StringRef> Opcodes;
      llvm::StringRef(O.Opcodes).split(Opcodes, ' ', -1, false);
      for (llvm::StringRef Op : Opcodes) {
        auto It = T->ByOpcode.find(Op);
        assert(It != T->ByOpcode.end() && "operand kinds for an opcode the table lacks");
        if (It == T->ByOpcode.end())
          continue;
        InstructionFamily &F = T->Families[It->second];
        F.Operands = O.Kinds;
        F.OperandsExcept = splitValues(O.Except);
      }
    }
    return T;
  }();
  return *T;
}

} // namespace

llvm::ArrayRef<InstructionFamily> instructionFamilies() { return table().Families; }

const InstructionFamily *lookupFamily(llvm::StringRef Opcode) {
  const Table &T = table();
  auto It = T.ByOpcode.find(Opcode);
  return It == T.ByOpcode.end() ? nullptr : &T.Families[It->second];
}

unsigned familyIndex(const InstructionFamily &F) { return unsigned(&F - table().Families.data()); }

int InstructionFamily::groupOf(llvm::StringRef Mod) const {
  const auto &Index = table().GroupIndex[familyIndex(*this)];
  auto It = Index.find(Mod);
  return It == Index.end() ? -1 : It->second;
}

} // namespace reptx::ptx
