/* A stand-in for libamdhip64.so for the HIP backend's unit tests: exports the entry points the
 * backend binds (loader/lib/HipBackend.cpp), records each call by name, and answers from the
 * environment: FAKE_HIP_VERSION (hipRuntimeGetVersion, default 60200000 = HIP 6.2) and
 * FAKE_HIP_DEVICES (hipGetDeviceCount, default 0). Device memory (managed memory too) is host
 * memory; registered memory is mapped at its own address unless FAKE_HIP_MAP_OFFSET says
 * otherwise. Built without
 * hipModuleLaunchKernel and hipRuntimeGetVersion when FAKE_HIP_PARTIAL is defined.
 *
 * The device is asynchronous and as slow as a test needs: a launched kernel completes only when
 * the host waits for it (hipDeviceSynchronize, hipEventSynchronize of an event recorded after
 * it, or a hipMemcpy, which the null stream orders after it); hipEventQuery only asks. Each kernel
 * takes FAKE_HIP_KERNEL_US microseconds of the device's clock (default 1000), which events record;
 * with FAKE_HIP_FAULT set, completing a kernel fails (hipErrorLaunchFailure, 719), and with
 * FAKE_HIP_PRINTF set a completed kernel prints that text (one record in the loader's printf
 * FIFO). fake_hip_completed() counts the kernels completed.
 *
 * Like HIP, hipInit registers an exit handler that shuts the runtime down; a call after it writes
 * "fake HIP: NAME after the runtime shut down" to stderr and ends the process with status 70 (a
 * real runtime may crash). The handler reports the kernels still queued, and the calls since the
 * log was last reset, on stderr when FAKE_HIP_EXIT_REPORT is set. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char Calls[16384];
static int ShutDown;

static void record(const char *Name) {
  if (ShutDown) {
    fprintf(stderr, "fake HIP: %s after the runtime shut down\n", Name);
    fflush(stderr);
    _exit(70);
  }
  size_t Used = strlen(Calls), N = strlen(Name);
  if (Used + N + 2 < sizeof(Calls)) {
    memcpy(Calls + Used, Name, N);
    Calls[Used + N] = '\n';
    Calls[Used + N + 1] = 0;
  }
}

static int envInt(const char *Name, int Default) {
  const char *V = getenv(Name);
  return V && *V ? atoi(V) : Default;
}

/* What the runtime allocated and has not freed stays reachable from here, as a real runtime's
 * bookkeeping keeps it: a loader that leaves it to the process's end (at exit) leaks nothing. */
static void *Live[4096];
static void *keep(void *P) {
  for (size_t I = 0; P && I < sizeof(Live) / sizeof(Live[0]); ++I)
    if (!Live[I]) {
      Live[I] = P;
      break;
    }
  return P;
}
static void drop(void *P) {
  for (size_t I = 0; P && I < sizeof(Live) / sizeof(Live[0]); ++I)
    if (Live[I] == P) {
      Live[I] = 0;
      break;
    }
  free(P);
}

const char *fake_hip_calls(void) { return Calls; }
void fake_hip_reset(void) { Calls[0] = 0; }

/* The device's queue: kernels launched and completed, and its clock in microseconds. */
static int Launched, Completed;
static long long ClockUs;
int fake_hip_completed(void) { return Completed; }

/* The device address of the loader's printf FIFO, which the loader writes to the slot
 * hipModuleGetGlobal gives for __reptx_printf_buffer (backend/PrintfFormat.h: a 32-byte header
 * of capacity, bytes used and overflow, then records of a 16-byte header: size, argument bytes,
 * format string address). */
static unsigned long long PrintfBuffer;

static void devicePrintf(void) {
  const char *Text = getenv("FAKE_HIP_PRINTF");
  if (!Text || !PrintfBuffer)
    return;
  unsigned long long *Header = (unsigned long long *)(uintptr_t)PrintfBuffer;
  unsigned long long Used = Header[1];
  if (Used + 16 > Header[0])
    return;
  unsigned char *Record = (unsigned char *)(uintptr_t)PrintfBuffer + 32 + Used;
  unsigned Size = 16, Bytes = 0;
  unsigned long long Format = (uintptr_t)Text; /* device memory is host memory here */
  memcpy(Record, &Size, 4);
  memcpy(Record + 4, &Bytes, 4);
  memcpy(Record + 8, &Format, 8);
  Header[1] = Used + 16;
}

/* Completes the queue up to (not beyond) Ticket kernels. */
static int completeUpTo(int Ticket) {
  int Fault = 0;
  while (Completed < Ticket) {
    ++Completed;
    devicePrintf();
    ClockUs += envInt("FAKE_HIP_KERNEL_US", 1000);
    if (getenv("FAKE_HIP_FAULT"))
      Fault = 719;
  }
  return Fault;
}

/* hip_runtime_api.h's tag for hipEvent_t, as the backend declares it (UBSan's function check
 * compares the types of functions called through pointers). */
struct ihipEvent_t {
  unsigned Flags;
  int Recorded, Ticket;
  long long WhenUs; /* the device clock once the kernels before it have run */
};
int hipEventCreateWithFlags(struct ihipEvent_t **E, unsigned Flags) {
  char Name[40];
  snprintf(Name, sizeof(Name), "hipEventCreateWithFlags(%u)", Flags);
  record(Name);
  *E = (struct ihipEvent_t *)keep(calloc(1, sizeof(struct ihipEvent_t)));
  (*E)->Flags = Flags;
  return 0;
}
int hipEventRecord(struct ihipEvent_t *E, void *Stream) {
  record(Stream ? "hipEventRecord(stream)" : "hipEventRecord");
  E->Recorded = 1;
  E->Ticket = Launched;
  E->WhenUs = ClockUs + (long long)(Launched - Completed) * envInt("FAKE_HIP_KERNEL_US", 1000);
  return 0;
}
int hipEventSynchronize(struct ihipEvent_t *E) {
  record("hipEventSynchronize");
  return E->Recorded ? completeUpTo(E->Ticket) : 0;
}
int hipEventQuery(struct ihipEvent_t *E) {
  record("hipEventQuery");
  return E->Recorded && Completed < E->Ticket ? 600 : 0; /* hipErrorNotReady */
}
int hipEventElapsedTime(float *Ms, struct ihipEvent_t *A, struct ihipEvent_t *B) {
  record("hipEventElapsedTime");
  if ((A->Flags | B->Flags) & 2) /* hipEventDisableTiming */
    return 400;                  /* hipErrorInvalidHandle */
  if (!A->Recorded || !B->Recorded || Completed < A->Ticket || Completed < B->Ticket)
    return 600;
  *Ms = (float)(B->WhenUs - A->WhenUs) / 1000.0f;
  return 0;
}
int hipEventDestroy(struct ihipEvent_t *E) {
  record("hipEventDestroy");
  drop(E);
  return 0;
}

static void shutDown(void) {
  if (getenv("FAKE_HIP_EXIT_REPORT"))
    fprintf(stderr, "fake HIP: shut down with %d kernels queued, after:\n%s", Launched - Completed,
            Calls);
  ShutDown = 1;
}
int hipInit(unsigned Flags) {
  static int Registered;
  (void)Flags;
  record("hipInit");
  if (!Registered)
    atexit(shutDown);
  Registered = 1;
  return 0;
}
int hipGetDeviceCount(int *Count) {
  record("hipGetDeviceCount");
  *Count = envInt("FAKE_HIP_DEVICES", 0);
  return 0;
}
int hipDeviceGetName(char *Name, int Len, int Device) {
  (void)Device;
  record("hipDeviceGetName");
  snprintf(Name, (size_t)Len, "Fake AMD GPU");
  return 0;
}
int hipDeviceTotalMem(size_t *Bytes, int Device) {
  (void)Device;
  record("hipDeviceTotalMem");
  *Bytes = (size_t)8 << 30;
  return 0;
}
int hipMalloc(void **P, size_t Size) {
  record("hipMalloc");
  *P = keep(calloc(1, Size ? Size : 1));
  return *P ? 0 : 2;
}
int hipFree(void *P) {
  record("hipFree");
  drop(P);
  return 0;
}
int hipMallocManaged(void **P, size_t Size, unsigned Flags) {
  char Name[32];
  snprintf(Name, sizeof(Name), "hipMallocManaged(%u)", Flags);
  record(Name);
  *P = keep(calloc(1, Size ? Size : 1));
  return *P ? 0 : 2;
}
int hipHostRegister(void *P, size_t Size, unsigned Flags) {
  char Name[48];
  (void)P;
  snprintf(Name, sizeof(Name), "hipHostRegister(%zu,%u)", Size, Flags);
  record(Name);
  return 0;
}
int hipHostUnregister(void *P) {
  (void)P;
  record("hipHostUnregister");
  return 0;
}
/* The device address of registered memory: the host address, or FAKE_HIP_MAP_OFFSET bytes past
 * it (a runtime that maps it elsewhere). */
int hipHostGetDevicePointer(void **Device, void *Host, unsigned Flags) {
  (void)Flags;
  record("hipHostGetDevicePointer");
  *Device = (char *)Host + envInt("FAKE_HIP_MAP_OFFSET", 0);
  return 0;
}
int hipMemcpy(void *Dst, const void *Src, size_t Bytes, int Kind) {
  char Name[32];
  snprintf(Name, sizeof(Name), "hipMemcpy(%d)", Kind);
  record(Name);
  int Fault = completeUpTo(Launched); /* ordered after the kernels before it */
  memmove(Dst, Src, Bytes);
  return Fault;
}
int hipMemsetD8(void *P, unsigned char V, size_t N) {
  record("hipMemsetD8");
  memset(P, V, N);
  return 0;
}
int hipMemsetD16(void *P, unsigned short V, size_t N) {
  record("hipMemsetD16");
  for (size_t I = 0; I < N; ++I)
    memcpy((char *)P + 2 * I, &V, 2);
  return 0;
}
int hipMemsetD32(void *P, int V, size_t N) {
  record("hipMemsetD32");
  for (size_t I = 0; I < N; ++I)
    memcpy((char *)P + 4 * I, &V, 4);
  return 0;
}
int hipMemGetAddressRange(void **Base, size_t *Size, void *P) {
  record("hipMemGetAddressRange");
  *Base = P;
  *Size = 0;
  return 0;
}
int hipModuleLoadData(void **Module, const void *Image) {
  (void)Image;
  record("hipModuleLoadData");
  *Module = (void *)0x1;
  return 0;
}
int hipModuleUnload(void *Module) {
  (void)Module;
  record("hipModuleUnload");
  return 0;
}
int hipModuleGetFunction(void **F, void *Module, const char *Name) {
  (void)Module;
  (void)Name;
  record("hipModuleGetFunction");
  *F = (void *)0x2;
  return 0;
}
/* The pointer slots of `__managed__` variables (ir/Lift.h, ManagedSlotSuffix), by name, as every
 * module of the process had one (the loader points them at the variables' managed memory);
 * fake_hip_slot() reads one. */
static struct {
  char Name[64];
  unsigned long long Value;
} Slots[16];
static unsigned long long *slot(const char *Name, int Make) {
  for (size_t I = 0; I < sizeof(Slots) / sizeof(Slots[0]); ++I) {
    if (!strcmp(Slots[I].Name, Name))
      return &Slots[I].Value;
    if (!Slots[I].Name[0] && Make && strlen(Name) < sizeof(Slots[I].Name)) {
      strcpy(Slots[I].Name, Name);
      return &Slots[I].Value;
    }
  }
  return 0;
}
unsigned long long fake_hip_slot(const char *Name) {
  unsigned long long *S = slot(Name, 0);
  return S ? *S : ~0ull;
}

/* Module variables are not found (hipErrorNotFound), but for the printf FIFO's pointer and the
 * pointer slots of `__managed__` variables, which slots of host memory stand for. */
int hipModuleGetGlobal(void **P, size_t *Size, void *Module, const char *Name) {
  const char *Suffix = ".reptx.managed";
  size_t N = strlen(Name), K = strlen(Suffix);
  (void)Module;
  record("hipModuleGetGlobal");
  if (!strcmp(Name, "__reptx_printf_buffer")) {
    *P = &PrintfBuffer;
    *Size = sizeof(PrintfBuffer);
    return 0;
  }
  if (N > K && !strcmp(Name + N - K, Suffix) && (*P = slot(Name, 1))) {
    *Size = sizeof(unsigned long long);
    return 0;
  }
  return 500;
}
#ifndef FAKE_HIP_PARTIAL
int hipModuleLaunchKernel(void *F, unsigned GX, unsigned GY, unsigned GZ, unsigned BX, unsigned BY,
                          unsigned BZ, unsigned Shared, void *Stream, void **Params, void **Extra) {
  (void)F, (void)GX, (void)GY, (void)GZ, (void)BX, (void)BY, (void)BZ, (void)Shared;
  (void)Stream, (void)Params, (void)Extra;
  record("hipModuleLaunchKernel");
  ++Launched;
  return 0;
}
int hipRuntimeGetVersion(int *Version) {
  record("hipRuntimeGetVersion");
  *Version = envInt("FAKE_HIP_VERSION", 60200000);
  return 0;
}
#endif
int hipDeviceSynchronize(void) {
  record("hipDeviceSynchronize");
  return completeUpTo(Launched);
}
const char *hipGetErrorString(int E) {
  (void)E;
  return "fake HIP error";
}
