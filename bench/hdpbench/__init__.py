"""hdp-bench's orchestration: what runs the programs that move packets
(they are C), on the namespace topology and in the kernel lab's guests."""
