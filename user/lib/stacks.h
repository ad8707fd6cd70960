/* SPDX-License-Identifier: GPL-2.0 */
/* stacks.c: drop stacks. Included through ds.h. */
#ifndef DS_LIB_STACKS_H
#define DS_LIB_STACKS_H

struct ds_stack {
	uint64_t location;
	uint32_t reason;
	uint32_t id;
	uint64_t count;
	bool no_room;		/* counted without frames: no room */
	bool siteless;		/* and the stack did not reach the site */
	size_t nr;
	char site[256];		/* the site, "sym+0x1c/0x80 [mod]" */
	uint64_t frames[DROPSCOPE_STACK_DEPTH];
	char *symbols[DROPSCOPE_STACK_DEPTH];	/* "sym+0x1c/0x80 [mod]" */
	char *lines[DROPSCOPE_STACK_DEPTH];	/* show stacks lines, or NULL */
	bool has_lines;
};

struct ds_stacks {
	struct ds_stack *v;
	size_t n, cap;
};

/* Stacks on (for the drops r matches; NULL: all) or off. */
int ds_stacks_set(struct ds_nl *nl, bool on, const struct ds_rule *r);
int ds_stack_parse(struct nlattr *nest, struct ds_stack *s);
void ds_stack_free(struct ds_stack *s);
int ds_stacks_fetch(struct ds_nl *nl, struct ds_stacks *s);
void ds_stacks_free(struct ds_stacks *s);
/* By site (its total first), then count. */
void ds_stacks_sort(struct ds_stacks *s);
void ds_stacks_print(struct ds_print *p, const struct ds_stack *v, size_t n,
		     size_t top, const char *(*reason)(uint32_t id, void *arg),
		     void *arg);

#endif /* DS_LIB_STACKS_H */
