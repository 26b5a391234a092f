#!/usr/bin/python3
"""abi_check.py CC INCLUDE_DIR LIB_DIR [SYSTEM_INCLUDE_DIR]

Checks that reach's ARMCI headers have the binary interface of the ARMCI
whose headers lie in SYSTEM_INCLUDE_DIR (default /usr/include: Debian's
ARMCI-MPI, libarmci-mpi-dev), so that code compiled against those links
against reach's libarmci (LIB_DIR) unchanged:
  - type sizes, member offsets and constant values, compiled once against
    each header and compared;
  - every function that header declares, declared again with its prototype
    after reach's headers (a different prototype does not compile), named
    in no macro of reach's, and linked from reach's libarmci.
Prints each difference; the status is 0 if there is none, else 1."""
import os
import re
import subprocess
import sys
import tempfile

# (name, C expression): the same text is compiled against both headers.
FACTS = [
    ("sizeof(armci_hdl_t)", "sizeof(armci_hdl_t)"),
    ("offsetof(armci_hdl_t, target)", "offsetof(armci_hdl_t, target)"),
    ("offsetof(armci_hdl_t, aggregate)", "offsetof(armci_hdl_t, aggregate)"),
    ("sizeof(armci_giov_t)", "sizeof(armci_giov_t)"),
    ("sizeof(armci_size_t)", "sizeof(armci_size_t)"),
    ("sizeof(armci_domain_t)", "sizeof(armci_domain_t)"),
    ("sizeof(ARMCI_Group)", "sizeof(ARMCI_Group)"),
] + [(f"offsetof(armci_giov_t, {m})", f"offsetof(armci_giov_t, {m})")
     for m in ("src_ptr_array", "dst_ptr_array", "bytes", "ptr_array_len")] + [
    (f"offsetof(ARMCI_Group, {m})", f"offsetof(ARMCI_Group, {m})")
    for m in ("comm", "noncoll_pgroup_comm", "grp_to_abs", "abs_to_grp", "rank", "size")] + [
    (c, c) for c in (
        "ARMCI_ACC_INT", "ARMCI_ACC_LNG", "ARMCI_ACC_FLT", "ARMCI_ACC_DBL", "ARMCI_ACC_CPL",
        "ARMCI_ACC_DCP", "ARMCI_FETCH_AND_ADD", "ARMCI_FETCH_AND_ADD_LONG", "ARMCI_SWAP",
        "ARMCI_SWAP_LONG", "ARMCI_INT", "ARMCI_LONG", "ARMCI_LONG_LONG", "ARMCI_FLOAT",
        "ARMCI_DOUBLE", "SCOPE_ALL", "SCOPE_NODE", "SCOPE_MASTERS", "ARMCI_DOMAIN_SMP")]

PROTOTYPE = re.compile(
    r"^\s*((?:const\s+)?(?:int|void|long|float|double|MPI_Comm|armcix_mutex_hdl_t)\b[\s*]*"
    r"(\w+)\s*\([^;{}]*\))\s*;", re.M)


def prototypes(path):
    """(name, declaration) of every function the header declares."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", open(path).read(), flags=re.S)
    return [(m.group(2), " ".join(m.group(1).split()) + ";") for m in PROTOTYPE.finditer(text)]


def layout_source(include):
    rows = "\n".join(f"    out[{i}] = (long)({expr});" for i, (_, expr) in enumerate(FACTS))
    return (f"#include <stddef.h>\n{include}\n"
            f"void layout(long *out);\nvoid layout(long *out)\n{{\n{rows}\n}}\n")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"abi_check: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}", end="")
    return r.returncode == 0


def main():
    cc, include, libdir = sys.argv[1:4]
    system = sys.argv[4] if len(sys.argv) > 4 else "/usr/include"
    headers = [os.path.join(system, h) for h in ("armci.h", "message.h", "armcix.h")]
    for h in headers:
        if not os.path.exists(h):
            sys.exit(f"abi_check: {h} is missing (scripts/install-deps.sh installs "
                     "libarmci-mpi-dev)")
    funcs = [f for h in headers for f in prototypes(h)]
    if len(funcs) < 100:
        sys.exit(f"abi_check: only {len(funcs)} prototypes read from {system}; "
                 "is that ARMCI-MPI's armci.h?")

    with tempfile.TemporaryDirectory() as tmp:
        def write(name, text):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        theirs = write("theirs.c", layout_source("#include <armci.h>\n#include <armcix.h>")
                       .replace("void layout(", "void layout_theirs("))
        guards = "".join(f"#ifdef {n}\n#error {n} is a macro in reach's headers, a function "
                         f"in {system}'s\n#endif\n" for n, _ in funcs)
        decls = "\n".join(d for _, d in funcs)
        table = ",\n".join(f"    (void (*)(void)){n}" for n, _ in funcs)
        ours = write("ours.c",
                     layout_source('#include "armci.h"\n#include "armcix.h"')
                     .replace("void layout(", "void layout_ours(")
                     + guards + decls + "\n"
                     + f"void (*const every_function[])(void) = {{\n{table}\n}};\n")
        names = "\n".join(f'    "{name}",' for name, _ in FACTS)
        main_c = write("main.c", f"""#include <stdio.h>
void layout_theirs(long *out);
void layout_ours(long *out);
static const char *names[] = {{
{names}
}};
int main(void)
{{
    enum {{ N = {len(FACTS)} }};
    long theirs[N], ours[N];
    layout_theirs(theirs);
    layout_ours(ours);
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (theirs[i] != ours[i]) {{
            printf("abi_check: %s is %ld in reach's headers, %ld in {system}'s\\n",
                   names[i], ours[i], theirs[i]);
            bad++;
        }}
    printf("abi_check: %d facts and {len(funcs)} functions compared, %d differ\\n", N, bad);
    return bad != 0;
}}
""")
        exe = os.path.join(tmp, "abi")
        if not (run([cc, "-std=c11", "-Wall", "-Werror", "-c", theirs, "-o", theirs + ".o"])
                and run([cc, "-std=c11", "-Wall", "-Werror", "-iquote", include, "-c", ours,
                         "-o", ours + ".o"])
                and run([cc, main_c, theirs + ".o", ours + ".o", "-o", exe, f"-L{libdir}",
                         "-larmci", "-lreach", f"-Wl,-rpath,{libdir}"])):
            return 1
        r = subprocess.run([exe], capture_output=True, text=True)
        print(r.stdout, end="")
        return r.returncode


if __name__ == "__main__":
    sys.exit(main())
