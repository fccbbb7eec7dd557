// SPDX-License-Identifier: BSD-3-Clause
/* RX descriptors: checked before a byte of the frame is touched. */
#include <hdp/fwd.h>

#include <errno.h>

int hdp_fwd_rx_desc(struct hdp_pool *umem, uint64_t addr, uint32_t len,
		    void **data)
{
	/* The pool's own check, when its profile has bounds on. */
	if (hdp_pool_desc_to_ptr(umem, addr, len, data))
		return -EFAULT;
	/* And always the structural one: bounds=off must not mean a crash. */
	return hdp_layout_holds(hdp_pool_slots(umem), addr, len) ? 0 : -EFAULT;
}
