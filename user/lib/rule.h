/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rule.c: rules: the words of rule and capture, and the wire. Included
 * through ds.h.
 */
#ifndef DS_LIB_RULE_H
#define DS_LIB_RULE_H

enum ds_rule_field {
	DS_RF_SITE, DS_RF_REASON, DS_RF_DEV, DS_RF_L3, DS_RF_L4, DS_RF_NETNS,
	DS_RF_SMC, DS_RF_LAYER, DS_RF_TRAP, DS_RF_GROUP, DS_RF_COUNTER,
	DS_RF_KIND, DS_RF_COUNT
};

/* The fields' words, by enum ds_rule_field; NULL-terminated. */
extern const char *const ds_rule_fields[];

struct ds_rule {
	uint32_t id;		/* given by the module */
	uint8_t mode;		/* enum dropscope_rule_mode; 0: none sent */
	unsigned int has;	/* 1 << enum ds_rule_field: the fields set */
	uint64_t loc_start, loc_end;
	uint32_t reason, ifindex, netns, smc_reason;
	uint16_t l3;
	uint8_t l4;
	uint8_t layer;		/* enum dropscope_layer */
	uint8_t counter;	/* enum dropscope_dev_counter */
	char trap[40], group[40];
	char kind[16];		/* a qdisc's kind */
	uint64_t hits;		/* read: drops the rule decided */
};

struct ds_rules {
	struct ds_rule *v;
	size_t n, cap;
};

/* FIELD VALUE pairs; bad input is printed, DS_EUSAGE returned. */
int ds_rule_parse(struct ds_ctx *ctx, int argc, char **argv,
		  struct ds_rule *r);
/* r as a DROPSCOPE_A_RULE nest of msg, and back. */
int ds_rule_put(struct nl_msg *msg, const struct ds_rule *r);
int ds_rule_read(struct nlattr *nest, struct ds_rule *r);
int ds_rule_add(struct ds_nl *nl, const struct ds_rule *r, uint32_t *id);
int ds_rule_del(struct ds_nl *nl, uint32_t id);
int ds_rules_fetch(struct ds_nl *nl, struct ds_rules *l);
/*
 * The rules of a file of rule lines ("rule mask|only FIELD VALUE ...", or
 * the older "mask add|only ..."; # starts a comment), resolved; a bad line
 * is said as NAME:LINE and DS_EUSAGE returned, with nothing kept.
 */
int ds_rules_read(struct ds_ctx *ctx, FILE *f, const char *name,
		  struct ds_rules *out);
/* Every rule of l, or none: if the module refuses one (*failed its
 * index), those added before it are taken away. ids gets their ids. */
int ds_rules_add_all(struct ds_nl *nl, const struct ds_rules *l,
		     uint32_t *ids, size_t *failed);
void ds_rules_del_all(struct ds_nl *nl, const uint32_t *ids, size_t n);
/* A rule as the words "rule" takes: "mask l4 udp", names where the
 * system has them. */
int ds_rule_words(struct ds_ctx *ctx, const struct ds_rule *r, char *buf,
		  size_t len);

#endif /* DS_LIB_RULE_H */
