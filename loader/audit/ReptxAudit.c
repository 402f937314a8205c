// The rtld-audit module `reptx run` puts in LD_AUDIT (man 7 rtld-audit; glibc's <link.h>): every
// lookup the dynamic linker makes for libcuda.so.1 or libcuda.so -- a DT_NEEDED soname searched
// through DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, ld.so.cache and the default directories, or a
// dlopen() of an absolute or relative path whose last component is libcuda.so[.1] -- is answered
// with reptx's libcuda.so.1, whose path `reptx run` passes in REPTX_LIBCUDA. Every other lookup is
// left alone. LD_LIBRARY_PATH alone loses against DT_RPATH and never applies to a path with a
// slash, which is why this exists.
//
// The module is loaded by ld.so into its own link-map namespace with its own copy of libc, before
// the program and its LD_PRELOAD libraries. It is plain C, depends on nothing but libc, and is
// built without sanitizers (loader/CMakeLists.txt): an instrumented module would need the ASan
// runtime inside the audit namespace, where it cannot initialise.
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REPTX_AUDIT_EXPORT __attribute__((visibility("default")))

// The replacement path, read once in la_version (REPTX_LIBCUDA; empty: redirect nothing).
static char Replacement[4096];

// Whether the last path component of Name is libcuda.so.1 or libcuda.so.
static int isLibcuda(const char *Name) {
  const char *Base = strrchr(Name, '/');
  Base = Base ? Base + 1 : Name;
  return strcmp(Base, "libcuda.so.1") == 0 || strcmp(Base, "libcuda.so") == 0;
}

// man 7 rtld-audit: called first; the module is used only if it returns a version the dynamic
// linker accepts (the one it passes, or an older one it supports).
REPTX_AUDIT_EXPORT unsigned int la_version(unsigned int Version) {
  const char *Path = getenv("REPTX_LIBCUDA");
  if (Path && *Path && strlen(Path) < sizeof(Replacement))
    strcpy(Replacement, Path);
  return Version < LAV_CURRENT ? Version : LAV_CURRENT;
}

// man 7 rtld-audit: called with the original name (LA_SER_ORIG) and then with every candidate path
// the search tries (LA_SER_RPATH, LA_SER_LIBPATH, LA_SER_RUNPATH, LA_SER_CONFIG, LA_SER_DEFAULT).
// Returning a path that contains a slash for LA_SER_ORIG makes ld.so open that path and skip the
// search, so the candidates only matter if some caller's name was already rewritten elsewhere; both
// are redirected. The object is then identified by its file, so a program that already has reptx's
// library loaded gets the same one back.
REPTX_AUDIT_EXPORT char *la_objsearch(const char *Name, uintptr_t *Cookie, unsigned int Flag) {
  (void)Cookie;
  (void)Flag;
  if (Replacement[0] && isLibcuda(Name) && strcmp(Name, Replacement) != 0)
    return Replacement;
  return (char *)Name;
}
