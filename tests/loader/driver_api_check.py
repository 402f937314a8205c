#!/usr/bin/env python3
"""Compare reptx's driver API declarations (loader/include/reptx/loader/DriverApi.h) with the CUDA
toolkit's cuda.h: every declaration of DriverApi.h must have the toolkit's binary interface.

usage: driver_api_check.py CXX LOADER_INCLUDE_DIR CUDA_INCLUDE_DIR WORK_DIR

Exit 77 (skipped) when CUDA_INCLUDE_DIR/cuda.h does not exist. Otherwise:

1. The declarations are listed from clang's JSON AST of DriverApi.h (every enumerator, constant,
   typedef, structure field and function the header declares, so nothing can be left out).
2. Two translation units are generated and linked: one includes DriverApi.h, the other the
   toolkit's cuda.h (with __CUDA_API_VERSION_INTERNAL, so each ABI is declared under its ELF
   name). Each evaluates the same expressions into a table of (name, value): enumerator and
   constant values; size and alignment of every type; for enumerations the size and signedness of
   the type their values promote to; offset and size of every structure field. The program
   compares the tables by name.
3. In the toolkit's unit, the type DriverApi.h gives each function (and each typedef of a
   function pointer or scalar) is spelled again, where its names denote the toolkit's types, and
   compared with std::is_same to the toolkit's declaration. The names' own layouts are compared
   in 2, so equal names mean an equal calling signature.

A name DriverApi.h declares that cuda.h lacks fails the compilation of the toolkit's unit; the
compiler names it. Any difference is printed with its name; the exit status is then 1.
"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    cxx, own_inc, cuda_inc, work = sys.argv[1:]
    if not os.path.exists(os.path.join(cuda_inc, "cuda.h")):
        print(f"{cuda_inc}/cuda.h not found (no CUDA toolkit): skipped")
        return 77
    os.makedirs(work, exist_ok=True)

    decls = list_declarations(cxx, own_inc, work)
    own, toolkit, same_type = expressions(decls)
    print(f"DriverApi.h: {len(decls['constants'])} constants, {len(decls['types'])} types, "
          f"{sum(len(f) for f in decls['fields'].values())} fields, "
          f"{len(decls['functions'])} functions")

    common = r'''#include <cstddef>
#include <cstdint>
#include <type_traits>
struct Entry { const char *Name; unsigned long long Value; };
template <class T> unsigned long long value(T V) {
  if constexpr (std::is_pointer_v<T>) return reinterpret_cast<uintptr_t>(V);
  else return static_cast<unsigned long long>(V);
}
template <class E> constexpr unsigned long long promotion() {
  using P = decltype(+E{});
  return sizeof(P) * 2 + (std::is_signed_v<P> ? 1 : 0);
}
'''
    rows = lambda exprs: "".join(f'    {{"{n}", {e}}},\n' for n, e in exprs)
    own_src = (common + '#include "reptx/loader/DriverApi.h"\n'
               + "extern const Entry OwnTable[] = {\n" + rows(own) + "};\n"
               + f"extern const size_t OwnCount = {len(own)};\n")
    toolkit_src = (common + "#define __CUDA_API_VERSION_INTERNAL 1\n#include <cuda.h>\n"
                   + "#include <cstdio>\n#include <cstring>\n"
                   + "extern const Entry OwnTable[];\nextern const size_t OwnCount;\n"
                   + "const Entry ToolkitTable[] = {\n" + rows(toolkit) + "};\n"
                   + "const Entry SameType[] = {\n" + rows(same_type) + "};\n"
                   + MAIN)
    with open(os.path.join(work, "own.cpp"), "w") as f:
        f.write(own_src)
    with open(os.path.join(work, "toolkit.cpp"), "w") as f:
        f.write(toolkit_src)
    exe = os.path.join(work, "driver_api_check")
    cmd = [cxx, "-std=c++20", "-w", "-I", own_inc, "-isystem", cuda_inc,
           os.path.join(work, "own.cpp"), os.path.join(work, "toolkit.cpp"), "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("the generated comparison does not compile (a name of DriverApi.h missing from "
              "cuda.h, or a type spelled differently):\n" + r.stderr)
        return 1
    return subprocess.run([exe]).returncode


MAIN = r'''
int main() {
  int Bad = 0;
  size_t N = sizeof(ToolkitTable) / sizeof(ToolkitTable[0]);
  if (N != OwnCount) {
    std::printf("internal error: %zu toolkit rows, %zu own rows\n", N, OwnCount);
    return 1;
  }
  for (size_t I = 0; I < N; ++I) {
    if (std::strcmp(ToolkitTable[I].Name, OwnTable[I].Name) != 0) {
      std::printf("internal error: row %zu is %s and %s\n", I, ToolkitTable[I].Name,
                  OwnTable[I].Name);
      return 1;
    }
    if (ToolkitTable[I].Value != OwnTable[I].Value) {
      std::printf("MISMATCH %s: DriverApi.h %llu (0x%llx), cuda.h %llu (0x%llx)\n",
                  OwnTable[I].Name, OwnTable[I].Value, OwnTable[I].Value, ToolkitTable[I].Value,
                  ToolkitTable[I].Value);
      ++Bad;
    }
  }
  size_t T = sizeof(SameType) / sizeof(SameType[0]);
  for (size_t I = 0; I < T; ++I)
    if (!SameType[I].Value) {
      std::printf("MISMATCH %s: the type DriverApi.h declares is not cuda.h's\n",
                  SameType[I].Name);
      ++Bad;
    }
  std::printf("%zu values and %zu types compared with cuda.h: %d mismatches\n", N, T, Bad);
  return Bad ? 1 : 0;
}
'''


def list_declarations(cxx, own_inc, work):
    """Every declaration of DriverApi.h, from clang's JSON AST."""
    wrapper = os.path.join(work, "ast.cpp")
    with open(wrapper, "w") as f:
        f.write('#include "reptx/loader/DriverApi.h"\n')
    out = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", "-Xclang", "-ast-dump=json",
                          "-I", own_inc, wrapper], check=True, capture_output=True,
                         text=True).stdout
    tu = json.loads(out)

    def in_header(node):
        loc = node.get("loc", {})
        loc = loc.get("expansionLoc", loc)
        return loc.get("includedFrom", {}).get("file") == wrapper

    by_id = {}

    def index(node):
        by_id[node["id"]] = node
        for c in node.get("inner", []):
            index(c)

    index(tu)
    decls = {"constants": [], "types": [], "fields": {}, "functions": []}

    def referenced_decl(type_node):
        # The enum or record a type names (through sugar), or None.
        if type_node.get("kind") in ("EnumType", "RecordType") and "decl" in type_node:
            return by_id.get(type_node["decl"]["id"])
        for c in type_node.get("inner", []):
            if c.get("kind", "").endswith("Type"):
                d = referenced_decl(c)
                if d:
                    return d
        return None

    def record_fields(record, prefix):
        fields, last_anon = [], None
        for c in record.get("inner", []):
            if c["kind"] == "CXXRecordDecl" and not c.get("isImplicit") and not c.get("name"):
                last_anon = c
            elif c["kind"] == "FieldDecl" and not c.get("name"):
                # An anonymous union or struct member: its fields are the record's own.
                if last_anon is not None:
                    fields += record_fields(last_anon, prefix)
            elif c["kind"] == "FieldDecl":
                path = prefix + c["name"]
                fields.append(path)
                if "unnamed" in c["type"]["qualType"] and last_anon is not None:
                    fields += record_fields(last_anon, path + ".")
        return fields

    for node in tu["inner"]:
        if not in_header(node) or node.get("isImplicit"):
            continue
        kind = node["kind"]
        if kind == "EnumDecl":
            decls["constants"] += [c["name"] for c in node.get("inner", [])
                                   if c["kind"] == "EnumConstantDecl"]
        elif kind == "VarDecl":
            decls["constants"].append(node["name"])
        elif kind == "TypedefDecl":
            type_node = next(c for c in node["inner"] if c["kind"].endswith("Type"))
            target = referenced_decl(type_node)
            if type_node["kind"] == "PointerType" and target is not None:
                shape = "handle"  # a pointer to an opaque structure
            elif target is not None and target["kind"] == "EnumDecl":
                shape = "enum"
            elif target is not None:
                shape = "record"
                decls["fields"][node["name"]] = record_fields(target, "")
            else:
                shape = "spelled"  # a scalar or a function pointer: compared as spelled
            decls["types"].append((node["name"], shape, node["type"]["qualType"]))
        elif kind == "LinkageSpecDecl":
            for f in node.get("inner", []):
                if f["kind"] == "FunctionDecl":
                    decls["functions"].append((f["name"], f["type"]["qualType"]))
    return decls


def expressions(decls):
    """The (name, C++ expression) rows evaluated on both sides, and the type identities."""
    rows, same = [], []
    for c in decls["constants"]:
        rows.append((c, f"value({c})"))
    for name, shape, spelled in decls["types"]:
        rows.append((f"sizeof({name})", f"sizeof({name})"))
        rows.append((f"alignof({name})", f"alignof({name})"))
        if shape == "enum":
            rows.append((f"promotion({name})", f"promotion<{name}>()"))
        elif shape == "handle":
            rows.append((f"is_pointer({name})", f"std::is_pointer_v<{name}>"))
        elif shape == "spelled":
            same.append((f"typedef {name} = {spelled}", f"std::is_same_v<{name}, {spelled}>"))
        for field in decls["fields"].get(name, []):
            rows.append((f"offsetof({name}, {field})", f"offsetof({name}, {field})"))
            rows.append((f"sizeof({name}::{field})", f"sizeof((({name} *)nullptr)->{field})"))
    for name, spelled in decls["functions"]:
        same.append((f"{name}: {spelled}", f"std::is_same_v<decltype({name}), {spelled}>"))
    return rows, rows, same


if __name__ == "__main__":
    sys.exit(main())
