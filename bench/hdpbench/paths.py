"""Where hdp-bench's Python finds the programs it runs, the shipped
profiles and its own data: the source and build trees, or an installed
system. hdp-bench (bench_paths.c) says which in the environment:
BUILD_DIR for a build tree, HDP_BIN_DIR and HDP_CONFIG_DIR when installed.
"""
import os

# This package's parent: bench/ in the source tree, libexecdir/hdp installed.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A program's place in the build tree, when it is not tools/NAME/NAME;
# installed, each is in the bindir, but for the lab's own workload, which
# is beside this package.
_BUILD_PLACES = {
    "hdp-fwd": "dataplane/hdp-fwd",
    "hdp-ctl": "dataplane/hdp-ctl",
    "hdp-bench": "bench/hdp-bench",
    "hdp-lab-netlink": "bench/hdp-lab-netlink",
    "hdp-lab-loopback": "bench/hdp-lab-loopback",
}
_LIBEXEC = ("hdp-lab-netlink", "hdp-lab-loopback")


class Paths:
    def __init__(self, environ=None):
        env = os.environ if environ is None else environ
        self.lab = os.path.join(HERE, "kernel")     # patches, config, guest
        self.installed = bool(env.get("HDP_BIN_DIR"))
        if self.installed:
            self.bindir = env["HDP_BIN_DIR"]
            self.configs = env.get("HDP_CONFIG_DIR", "/etc/hdp")
            self.build = None
        else:
            source = os.path.dirname(HERE)
            self.build = env.get("BUILD_DIR") or os.path.join(source, "build")
            self.configs = os.path.join(source, "configs")

    def program(self, name):
        if self.installed:
            return os.path.join(HERE if name in _LIBEXEC else self.bindir, name)
        return os.path.join(self.build, _BUILD_PLACES.get(name, f"tools/{name}/{name}"))
