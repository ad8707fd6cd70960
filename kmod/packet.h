/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A drop's packet fields, the one definition of each, read in the probe
 * (probe.c) and for the parts that ask (fields.c): in any context, hard
 * IRQ included.
 */
#ifndef _DROPSCOPE_PACKET_H
#define _DROPSCOPE_PACKET_H

#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "dropscope.h"

/*
 * The entry of the drop's device in the devices' table, or NULL. skb->dev
 * is never dereferenced: queued skbs reuse the field (UDP's dev_scratch,
 * the rbnode of TCP out-of-order and IP reassembly queues) and the device
 * may be gone. It is looked up among the live devices instead (devices.c).
 */
static __always_inline const struct ds_dev *
ds_packet_dev(const struct sk_buff *skb)
{
	unsigned long dev = (unsigned long)skb->dev, d;
	const struct ds_devtab *t;
	u32 i;

	t = rcu_dereference_sched(ds_devtab);
	if (!t)
		return NULL;
	for (i = ds_dev_hash(t, dev);; i = (i + 1) & t->mask) {
		/* pairs with the smp_store_release() in ds_dev_add() */
		d = smp_load_acquire(&t->e[i].dev);
		if (!d)
			return NULL;
		if (d == dev)
			return &t->e[i];
	}
}

/* The socket's netns, else the device's. */
static __always_inline u32 ds_packet_netns(const struct sk_buff *skb)
{
	const struct ds_dev *e;

	if (skb->sk)
		return sock_net(skb->sk)->ns.inum;
	e = ds_packet_dev(skb);
	return e ? e->inum : 0;
}

/*
 * The IPv4 or IPv6 protocol byte, when the network header is set (a fresh
 * skb has offset 0 there) and the byte lies in the linear part.
 */
static __always_inline u8 ds_packet_l4(const struct sk_buff *skb)
{
	unsigned int nh = skb->network_header, at;

	if (skb->protocol == htons(ETH_P_IP))
		at = nh + offsetof(struct iphdr, protocol);
	else if (skb->protocol == htons(ETH_P_IPV6))
		at = nh + offsetof(struct ipv6hdr, nexthdr);
	else
		return 0;
	return nh && at < skb_tail_pointer(skb) - skb->head ? skb->head[at] : 0;
}

/*
 * A drop's packet fields, the one definition of each: the input interface
 * (skb_iif, as drop_monitor reports it), the netns, the L3 protocol (in
 * network byte order) and the L4 protocol.
 */
static __always_inline int ds_packet_ifindex(const struct sk_buff *skb)
{
	return skb->skb_iif;
}

static __always_inline u16 ds_packet_l3(const struct sk_buff *skb)
{
	return (__force u16)skb->protocol;
}

#endif /* _DROPSCOPE_PACKET_H */
