/* A stand-in for libhsa-runtime64.so.1 for the HIP backend's unit tests: the four entry points
 * the backend reads the GPU's processor and compute units with (loader/lib/HipBackend.cpp,
 * hsaGpus). Its agents come from FAKE_HSA_AGENTS, a comma-separated list of `cpu` (a CPU agent)
 * and `NAME:UNITS` (a GPU agent); FAKE_HSA_INIT_FAILS makes hsa_init fail. fake_hsa_open() is
 * the number of hsa_init calls not yet matched by hsa_shut_down. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Named as hsa.h names it: the function types must be the caller's (UBSan checks them). */
typedef struct hsa_agent_s {
  uint64_t handle;
} hsa_agent_t;

static int Open;

int fake_hsa_open(void) { return Open; }

int hsa_init(void) {
  if (getenv("FAKE_HSA_INIT_FAILS"))
    return 0x1001; /* HSA_STATUS_ERROR */
  ++Open;
  return 0;
}
int hsa_shut_down(void) {
  if (Open == 0)
    return 0x100B; /* HSA_STATUS_ERROR_NOT_INITIALIZED */
  --Open;
  return 0;
}

/* Agent N is the Nth entry of FAKE_HSA_AGENTS, copied into Out (at most Size bytes). */
static int agent(uint64_t N, char *Out, size_t Size) {
  const char *List = getenv("FAKE_HSA_AGENTS");
  if (!List)
    return 0;
  for (uint64_t I = 0; *List; ++I) {
    const char *End = strchr(List, ',');
    size_t Len = End ? (size_t)(End - List) : strlen(List);
    if (I == N) {
      if (Len >= Size)
        Len = Size - 1;
      memcpy(Out, List, Len);
      Out[Len] = 0;
      return 1;
    }
    if (!End)
      break;
    List = End + 1;
  }
  return 0;
}

int hsa_iterate_agents(int (*Callback)(hsa_agent_t, void *), void *Data) {
  if (Open == 0)
    return 0x100B;
  char Entry[128];
  for (uint64_t I = 0; agent(I, Entry, sizeof(Entry)); ++I) {
    hsa_agent_t A = {I};
    int R = Callback(A, Data);
    if (R != 0)
      return R;
  }
  return 0;
}

int hsa_agent_get_info(hsa_agent_t A, int Attribute, void *Value) {
  char Entry[128];
  if (Open == 0 || !agent(A.handle, Entry, sizeof(Entry)))
    return 0x1001;
  int Gpu = strcmp(Entry, "cpu") != 0;
  char *Colon = strchr(Entry, ':');
  if (Colon)
    *Colon = 0;
  switch (Attribute) {
  case 0: /* HSA_AGENT_INFO_NAME: char[64] */
    memset(Value, 0, 64);
    strncpy((char *)Value, Gpu ? Entry : "Fake CPU", 63);
    return 0;
  case 17: /* HSA_AGENT_INFO_DEVICE */
    *(int *)Value = Gpu ? 1 : 0;
    return 0;
  case 0xA002: /* HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT */
    *(uint32_t *)Value = Colon ? (uint32_t)atoi(Colon + 1) : 4;
    return 0;
  default:
    return 0x1003; /* HSA_STATUS_ERROR_INVALID_ARGUMENT */
  }
}
