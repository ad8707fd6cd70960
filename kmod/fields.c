// SPDX-License-Identifier: GPL-2.0
/*
 * A drop's packet fields, and the filter that says which of them the drop
 * path is keyed by: what the rules (rules.c) ask of the probe (probe.c),
 * and what the probe's other parts (capture, stacks, sessions) read of a
 * drop. The readers themselves are in packet.h, inlined into the probe.
 * This file calls no other of the module's: the probe, the rules and the
 * parts all come here.
 */

#include <linux/bitmap.h>
#include <linux/jump_label.h>
#include <linux/skbuff.h>

#include "dropscope.h"
#include "packet.h"

/*
 * The packet fields some mask rule matches on, one static key each, and
 * ds_packet_fields while any of them is on: a drop extracts just the fields
 * the rules use, and with no such rule the probe pays one no-op for them.
 * ds_gate_key is on while the rules on packet fields all name a device,
 * ds_gate holding those devices. Switched by ds_filter_apply() only,
 * which is the one place that knows what the drop path is keyed by.
 */
DEFINE_STATIC_KEY_FALSE(ds_packet_fields);
struct static_key_false ds_field_keys[DS_F_COUNT] = {
	[0 ... DS_F_COUNT - 1] = STATIC_KEY_FALSE_INIT,
};

DEFINE_STATIC_KEY_FALSE(ds_gate_key);
DECLARE_BITMAP(ds_gate, DS_GATE_DEVS);
static u32 ds_fields;		/* under ds_lock: the fields switched on */

/*
 * The packet fields in fields (BIT(DS_F_*)) of a drop, as its site is
 * keyed by them: for the slow path's parts, through ds_drop_key(), in
 * any context, hard IRQ included. Only a drop gated out of the packet
 * fields has them 0 in its site, and none of the rules that use them can
 * match it either way, since each names a device it did not come in on.
 */
notrace void ds_drop_fields(const struct sk_buff *skb, u32 fields,
			    struct ds_key *k)
{
	if (fields & BIT(DS_F_IFINDEX))
		k->ifindex = ds_packet_ifindex(skb);
	if (fields & BIT(DS_F_NETNS))
		k->netns = ds_packet_netns(skb);
	if (fields & BIT(DS_F_L3))
		k->l3 = ntohs((__force __be16)ds_packet_l3(skb));
	if (fields & BIT(DS_F_L4))
		k->l4 = ds_packet_l4(skb);
}

/* The netns of a drop, for a capture's record (capture.c). */
notrace u32 ds_drop_netns(const struct sk_buff *skb)
{
	return ds_packet_netns(skb);
}

/*
 * Apply a filter: first everything that makes drops keyed by more (a field
 * turned on, a device added to the gate, the gate opened), then everything
 * that makes them keyed by less. Called with the rules' filter plus a new
 * rule's before the fold that precedes the change, and with the exact one
 * after it, so that no drop is judged on a field it was not keyed by.
 * Returns whether drops are now keyed by more: a probe may still be
 * counting under the narrower filter until an RCU grace period has passed.
 * Under ds_lock, in process context.
 */
bool ds_filter_apply(const struct ds_filter *f)
{
	bool gated = ds_filter_gated(f), widened = false;
	unsigned int b;
	int i;

	lockdep_assert_held(&ds_lock);
	if (!gated) {
		widened |= static_key_enabled(&ds_gate_key);
		static_branch_disable(&ds_gate_key);
	} else {
		for_each_set_bit(b, f->devs, DS_GATE_DEVS)
			widened |= !test_and_set_bit(b, ds_gate);
		widened &= static_key_enabled(&ds_gate_key);
	}
	if (f->fields && !ds_fields)
		static_branch_enable(&ds_packet_fields);
	for (i = 0; i < DS_F_COUNT; i++) {
		if ((f->fields & BIT(i)) && !(ds_fields & BIT(i))) {
			static_branch_enable(&ds_field_keys[i]);
			widened = true;
		}
	}

	if (gated) {
		if (static_key_enabled(&ds_gate_key)) {
			for_each_set_bit(b, ds_gate, DS_GATE_DEVS)
				if (!test_bit(b, f->devs))
					clear_bit(b, ds_gate);
		} else {
			bitmap_copy(ds_gate, f->devs, DS_GATE_DEVS);
			static_branch_enable(&ds_gate_key);
		}
	}
	for (i = 0; i < DS_F_COUNT; i++)
		if (!(f->fields & BIT(i)) && (ds_fields & BIT(i)))
			static_branch_disable(&ds_field_keys[i]);
	if (!f->fields && ds_fields)
		static_branch_disable(&ds_packet_fields);
	ds_fields = f->fields;
	return widened;
}
