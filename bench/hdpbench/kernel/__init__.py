"""The kernel lab: the seeds' kernels built from Debian's sources, booted
under QEMU, measured beside hdp (hdp-bench kernel)."""
