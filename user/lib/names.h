/* SPDX-License-Identifier: GPL-2.0 */
/*
 * names.c: names of packet fields, protocols, devices, netns, TCP states.
 * Included through ds.h.
 */
#ifndef DS_LIB_NAMES_H
#define DS_LIB_NAMES_H

/* Names of packet fields, as rules take them; numbers when unknown */
#define DS_NETNS_DIR "/run/netns"	/* ip netns names */
const char *ds_dev_name(uint32_t ifindex, char *buf, size_t len);
const char *ds_netns_name(uint32_t inum, char *buf, size_t len);
const char *ds_l3_name(uint32_t l3, char *buf, size_t len);
const char *ds_l4_name(uint32_t l4, char *buf, size_t len);
const char *const *ds_proto_names(bool l3);
int ds_l3_parse(const char *s, unsigned int *v);
int ds_l4_parse(const char *s, unsigned int *v);
int ds_netns_parse(const char *s, uint32_t *inum);
const char *ds_tcp_state_name(unsigned int state);

#endif /* DS_LIB_NAMES_H */
