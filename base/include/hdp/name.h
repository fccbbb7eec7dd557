/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule for a pool's name, which every layer that names a pool
 * follows: the pools when they are made, the hardening's profiles and
 * exclusion lists, the forwarder's configuration.
 */
#ifndef HDP_NAME_H
#define HDP_NAME_H

#include <stdbool.h>

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Is @name a valid pool name: 1 to 31 characters from [A-Za-z0-9_-]? (No
 * dots, commas, '=' or glob characters, so that "pool.NAME.KEY" and
 * exclusion lists parse.)
 */
HDP_API bool hdp_pool_name_valid(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* HDP_NAME_H */
