/* SPDX-License-Identifier: GPL-2.0 */
/*
 * show.c: what several commands print: sites, alerts, sessions. Included
 * through ds.h.
 */
#ifndef DS_LIB_SHOW_H
#define DS_LIB_SHOW_H

void ds_site_print(struct ds_print *p, const struct ds_site *s,
		   const char *stamp);
void ds_sites_print(struct ds_print *p, const struct ds_site *v, size_t n,
		    size_t top);
void ds_sites_print_as(struct ds_print *p, const char *key,
		       const struct ds_site *v, size_t n, size_t top);
void ds_alert_print(struct ds_print *p, const struct ds_alert *a);


void ds_sess_event_print(struct ds_print *p, const struct ds_sess_event *e);
void ds_session_fields(struct ds_print *p, const struct ds_session *s);
/* The columns of show sessions; the last one, the rest, has no key. */
extern const struct ds_col ds_sess_cols[];
void ds_session_print(struct ds_print *p, const struct ds_session *s);
void ds_close_head(struct ds_print *p);
void ds_closes_print(struct ds_print *p, const struct ds_session *v,
		     size_t n);

/* What a sessions dump collects: ds_nl_dump(nl, cmd, ds_sessions_cb,
 * ds_sessions_reset, &sessions) appends to v. */
struct ds_sessions {
	struct ds_session *v;
	size_t n, cap;
	size_t base;		/* where the dump under way began */
};

int ds_sessions_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		   void *arg);
void ds_sessions_reset(void *arg);

/* The filters of show sessions, watch sessions and top. */
struct ds_sess_filter {
	uint64_t pid;		/* UINT64_MAX: any */
	uint64_t port;		/* UINT64_MAX: any; local or remote */
};

bool ds_sess_match(const struct ds_sess_filter *f, const struct ds_session *s);
bool ds_sess_event_match(const struct ds_sess_filter *f,
			 const struct ds_sess_event *e);
int ds_sess_filter_arg(struct ds_sess_filter *f, int argc, char **argv, int *a);
void ds_sessions_print(struct ds_print *p, const struct ds_session *v,
		       size_t n, size_t top);

/* The running kernel's GNU build id as hex, "" if unknown (record.c). */
void ds_kernel_build_id(char *out, size_t len);

#endif /* DS_LIB_SHOW_H */
