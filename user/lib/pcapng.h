/* SPDX-License-Identifier: GPL-2.0 */
/* pcapng.c: the pcapng file's blocks. Included through ds.h. */
#ifndef DS_LIB_PCAPNG_H
#define DS_LIB_PCAPNG_H

struct ds_pcapng;
struct ds_pcapng *ds_pcapng_open(FILE *f, uint32_t snaplen);
int ds_pcapng_write(struct ds_pcapng *w, uint64_t ns, uint32_t ifindex,
		    uint16_t protocol, const void *data, uint32_t caplen,
		    uint32_t len, const char *comment);
int ds_pcapng_flush(struct ds_pcapng *w);
int ds_pcapng_close(struct ds_pcapng *w);

#endif /* DS_LIB_PCAPNG_H */
