// SPDX-License-Identifier: GPL-2.0
/*
 * The capture file: pcapng (the IETF draft's Section Header, Interface
 * Description and Enhanced Packet Blocks), in the machine's byte order as
 * the format allows. One interface of link type LINUX_SLL2: each packet is
 * the dropped packet from its network header, behind a cooked header that
 * carries its protocol and input interface, so that tcpdump's filters
 * (`udp port 7777`) work on the file. Each packet's comment (opt_comment)
 * holds its drop reason and site, which tshark shows as frame.comment.
 * libpcap reads pcapng but writes only pcap, which has no place for them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "ds.h"

#define DS_BT_SHB	0x0A0D0D0AU
#define DS_BT_IDB	0x00000001U
#define DS_BT_EPB	0x00000006U
#define DS_LINKTYPE_LINUX_SLL2	276
#define DS_SLL2_LEN	20
#define DS_ARPHRD_NONE	0xfffe

/* the largest block: a packet of 65535 bytes, its header and comment */
#define DS_BLOCK_MAX	(28 + DS_SLL2_LEN + 65536 + 4 + 65536 + 8)
/* blocks are gathered here and written by ds_pcapng_flush() */
#define DS_PCAPNG_BUF	(1U << 20)

/* A block is put together in buf, then written with one fwrite(). */
struct ds_pcapng {
	FILE *f;
	uint32_t snaplen;
	int err;
	size_t len;
	uint8_t buf[DS_PCAPNG_BUF];
};

static void ds_put(struct ds_pcapng *w, const void *p, size_t n)
{
	if (w->len + n > sizeof(w->buf)) {
		w->err = -1;
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void ds_flush(struct ds_pcapng *w)
{
	if (!w->err && w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->err = -1;
	w->len = 0;
}

static void ds_put32(struct ds_pcapng *w, uint32_t v)
{
	ds_put(w, &v, 4);
}

static void ds_put16(struct ds_pcapng *w, uint16_t v)
{
	ds_put(w, &v, 2);
}

static size_t ds_pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* An option: code, length, value padded to 4 bytes. */
static void ds_opt(struct ds_pcapng *w, uint16_t code, const void *v,
		   size_t n)
{
	static const uint8_t zero[4];

	ds_put16(w, code);
	ds_put16(w, (uint16_t)n);
	ds_put(w, v, n);
	ds_put(w, zero, ds_pad4(n) - n);
}

static size_t ds_opt_size(size_t n)
{
	return 4 + ds_pad4(n);
}

struct ds_pcapng *ds_pcapng_open(FILE *f, uint32_t snaplen)
{
	static const char app[] = "dropscope";
	struct ds_pcapng *w = calloc(1, sizeof(*w));
	uint8_t tsresol = 9;	/* nanoseconds */
	uint32_t len;

	if (!w)
		return NULL;
	w->f = f;
	w->snaplen = snaplen + DS_SLL2_LEN;
	/* Section Header: byte-order magic, version 1.0, length unknown */
	len = 28 + (uint32_t)ds_opt_size(sizeof(app) - 1) + 4;
	ds_put32(w, DS_BT_SHB);
	ds_put32(w, len);
	ds_put32(w, 0x1A2B3C4DU);
	ds_put16(w, 1);
	ds_put16(w, 0);
	ds_put32(w, 0xffffffffU);
	ds_put32(w, 0xffffffffU);
	ds_opt(w, 4, app, sizeof(app) - 1);	/* shb_userappl */
	ds_put32(w, 0);				/* opt_endofopt */
	ds_put32(w, len);
	/* Interface Description: cooked, nanosecond timestamps */
	len = 20 + (uint32_t)ds_opt_size(1) + 4;
	ds_put32(w, DS_BT_IDB);
	ds_put32(w, len);
	ds_put16(w, DS_LINKTYPE_LINUX_SLL2);
	ds_put16(w, 0);
	ds_put32(w, w->snaplen);
	ds_opt(w, 9, &tsresol, 1);		/* if_tsresol */
	ds_put32(w, 0);
	ds_put32(w, len);
	ds_flush(w);
	if (w->err) {
		free(w);
		return NULL;
	}
	return w;
}

/*
 * One packet: its first caplen bytes of len from the network header,
 * dropped at ns (CLOCK_REALTIME) after coming in on ifindex (0: none).
 */
int ds_pcapng_write(struct ds_pcapng *w, uint64_t ns, uint32_t ifindex,
		    uint16_t protocol, const void *data, uint32_t caplen,
		    uint32_t len, const char *comment)
{
	size_t clen = comment ? strlen(comment) : 0, plen;
	uint8_t sll2[DS_SLL2_LEN] = { 0 };
	uint32_t head[7], total;
	uint16_t be16, opt[2];
	uint32_t be32;
	uint8_t *p;

	if (clen > 0xffff)
		clen = 0xffff;
	/* the cooked header: protocol, ifindex, ARPHRD, type, address */
	be16 = htons(protocol);
	memcpy(sll2, &be16, 2);
	be32 = htonl(ifindex);
	memcpy(sll2 + 4, &be32, 4);
	be16 = htons(DS_ARPHRD_NONE);
	memcpy(sll2 + 8, &be16, 2);
	plen = DS_SLL2_LEN + caplen;
	total = (uint32_t)(28 + ds_pad4(plen) +
			   (clen ? ds_opt_size(clen) + 4 : 0) + 4);
	if (total > DS_BLOCK_MAX) {
		w->err = -1;
		return w->err;
	}
	if (w->len + total > sizeof(w->buf))
		ds_flush(w);
	/* the Enhanced Packet Block, written in place */
	head[0] = DS_BT_EPB;
	head[1] = total;
	head[2] = 0;				/* interface 0 */
	head[3] = (uint32_t)(ns >> 32);
	head[4] = (uint32_t)ns;
	head[5] = (uint32_t)plen;
	head[6] = DS_SLL2_LEN + len;
	p = w->buf + w->len;
	memcpy(p, head, sizeof(head));
	p += sizeof(head);
	memcpy(p, sll2, sizeof(sll2));
	p += sizeof(sll2);
	memcpy(p, data, caplen);
	p += caplen;
	memset(p, 0, ds_pad4(plen) - plen);
	p += ds_pad4(plen) - plen;
	if (clen) {
		opt[0] = 1;			/* opt_comment */
		opt[1] = (uint16_t)clen;
		memcpy(p, opt, sizeof(opt));
		p += sizeof(opt);
		memcpy(p, comment, clen);
		p += clen;
		memset(p, 0, ds_pad4(clen) - clen + 4);	/* and opt_endofopt */
		p += ds_pad4(clen) - clen + 4;
	}
	memcpy(p, &total, 4);
	w->len += total;
	return w->err;
}

/* Write out the blocks gathered so far; nonzero if the file refused. */
int ds_pcapng_flush(struct ds_pcapng *w)
{
	ds_flush(w);
	if (!w->err && fflush(w->f))
		w->err = -1;
	return w->err;
}

/* Flush and close the file; nonzero if anything failed to be written. */
int ds_pcapng_close(struct ds_pcapng *w)
{
	int err;

	if (!w)
		return 0;
	ds_flush(w);
	err = w->err;
	if (fclose(w->f))
		err = -1;
	free(w);
	return err;
}
