// SPDX-License-Identifier: BSD-3-Clause
/* Why a packet was dropped, by name (HDP_FWD_DROPS): both engines count by these. */
#include <hdp/fwd.h>

static const char *const drop_names[] = {
#define NAME(kind, name, doc) #name,
	HDP_FWD_DROPS(NAME)
#undef NAME
};

const char *hdp_fwd_drop_name(enum hdp_fwd_drop d)
{
	return (unsigned)d < HDP_FWD_DROP__COUNT ? drop_names[d] : "unknown";
}
