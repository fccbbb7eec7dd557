/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the configuration's files share: values as INI text (ini_text.c),
 * ports (ports.c), the workers' CPUs (cores.c), and the key table's
 * answers for the printer (keys.c, show.c).
 */
#ifndef HDP_CONFIG_CFG_INTERNAL_H
#define HDP_CONFIG_CFG_INTERNAL_H

#include <hdp/fwd.h>

/* Decimal digits only, from @lo to @hi: 0 or -EINVAL. */
int cfg_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out);

/*
 * A value refused where it is set, logged: "FILE:LINE: [SECTION] key 'K',
 * value 'V': WHY", or "--OPTION 'V': WHY" (@line 0). Returns -EINVAL.
 */
int cfg_refuse(const char *source, int line, const char *section, const char *key,
	       const char *value, const char *why);

/*
 * "IF" or "IF:QUEUE" into its parts: 0, -EINVAL (not that form) or
 * -EDOM (not an interface name), with the reason in @why.
 */
int cfg_port_spec(const char *spec, char *ifname, uint32_t *queue, char *why, size_t len);

/* The port @ifname:@queue, added (named at @source:@line) if it is new; NULL: too many. */
struct hdp_port_cfg *cfg_port_add(struct hdp_fwd_cfg *cfg, const char *ifname, uint32_t queue,
				  const char *source, int line);

/* The ports key: the list replaces the ports, keeping their [port:IF] keys. */
int cfg_ports_set(struct hdp_fwd_cfg *cfg, const char *list, const char *source, int line);
/* The list as the ports key says it. */
const char *cfg_ports_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len);

/*
 * The [port:IF] keys' rows of the key table (keys.c), each its value into
 * port @p or why not into @why; its value as it reads back for port @i
 * (NULL: the section does not set it); whether two ports differ in it.
 */
int cfg_peer_set(struct hdp_port_cfg *p, const char *value, char *why, size_t len);
const char *cfg_peer_text(const struct hdp_fwd_cfg *cfg, unsigned i, char *buf, size_t len);
bool cfg_peer_differs(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b);
int cfg_src_mac_set(struct hdp_port_cfg *p, const char *value, char *why, size_t len);
const char *cfg_src_mac_text(const struct hdp_fwd_cfg *cfg, unsigned i, char *buf, size_t len);
bool cfg_src_mac_differs(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b);
int cfg_dst_mac_set(struct hdp_port_cfg *p, const char *value, char *why, size_t len);
const char *cfg_dst_mac_text(const struct hdp_fwd_cfg *cfg, unsigned i, char *buf, size_t len);
bool cfg_dst_mac_differs(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b);

/* A key of section [port:IF...] (@section), the port added if it is new. */
int cfg_port_key_set(struct hdp_fwd_cfg *cfg, const char *section, const char *key,
		     const char *value, const char *source, int line);
/* The [port:IF] keys, for the printer: their number, names, and port @i's values (NULL: unset). */
unsigned cfg_port_keys(void);
const char *cfg_port_key_name(unsigned k);
const char *cfg_port_key_text(const struct hdp_fwd_cfg *cfg, unsigned i, unsigned k, char *buf,
			      size_t len);

/*
 * [global] key @key set to @value, named at @source:@line (--OPTION and 0
 * for an option): 0, or -EINVAL logged as the parser logs it.
 */
int cfg_key_set(struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key, const char *value,
		const char *source, int line);

/* The cores key; its value as it reads. */
int cfg_cores_set(struct hdp_fwd_cfg *cfg, const char *list, const char *source, int line);
const char *cfg_cores_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len);

/*
 * A [global] key, for the printer: its name; its value as it reads back
 * (NULL: it has none to print, its note says why); whether it is printed
 * at all; the comment that goes after it, or NULL.
 */
const char *cfg_key_name(enum hdp_fwd_key key);
const char *cfg_key_text(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key, char *buf,
			 size_t len);
bool cfg_key_shown(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key);
const char *cfg_key_note(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key);

#endif /* HDP_CONFIG_CFG_INTERNAL_H */
