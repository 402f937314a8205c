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
 * with FAKE_HIP_FAULT set, completing a kernel fails (hipErrorLaunchFailure, 719).
 * fake_hip_completed() counts the kernels completed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char Calls[16384];

static void record(const char *Name) {
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

const char *fake_hip_calls(void) { return Calls; }
void fake_hip_reset(void) { Calls[0] = 0; }

/* The device's queue: kernels launched and completed, and its clock in microseconds. */
static int Launched, Completed;
static long long ClockUs;
int fake_hip_completed(void) { return Completed; }

/* Completes the queue up to (not beyond) Ticket kernels. */
static int completeUpTo(int Ticket) {
  int Fault = 0;
  while (Completed < Ticket) {
    ++Completed;
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
  *E = (struct ihipEvent_t *)calloc(1, sizeof(struct ihipEvent_t));
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
  free(E);
  return 0;
}

int hipInit(unsigned Flags) {
  (void)Flags;
  record("hipInit");
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
  *P = calloc(1, Size ? Size : 1);
  return *P ? 0 : 2;
}
int hipFree(void *P) {
  record("hipFree");
  free(P);
  return 0;
}
int hipMallocManaged(void **P, size_t Size, unsigned Flags) {
  char Name[32];
  snprintf(Name, sizeof(Name), "hipMallocManaged(%u)", Flags);
  record(Name);
  *P = calloc(1, Size ? Size : 1);
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
/* Module variables are not found (hipErrorNotFound), but for the printf FIFO's pointer, which
 * one slot of host memory stands for (the loader points it at the FIFO it allocates). */
int hipModuleGetGlobal(void **P, size_t *Size, void *Module, const char *Name) {
  static unsigned long long PrintfBuffer;
  (void)Module;
  record("hipModuleGetGlobal");
  if (strcmp(Name, "__reptx_printf_buffer") != 0)
    return 500;
  *P = &PrintfBuffer;
  *Size = sizeof(PrintfBuffer);
  return 0;
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
