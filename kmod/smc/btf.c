// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of smc.ko's private structs, from its BTF.
 *
 * struct smc_sock and what hangs off it are private to net/smc and differ
 * between kernels, so no offset of theirs is compiled in. The kernel
 * describes them in BTF: in smc.ko's own (split) BTF when SMC is a module,
 * on top of vmlinux's, and in vmlinux's when SMC is built in. This file
 * reads the few member offsets the SMC probes need from there, by struct
 * and member name, once each time smc.ko comes or the part attaches:
 *
 *   smc_sock.conn.lnk     the SMC-R link (NULL for SMC-D), as the kernel's
 *                         own smc_msg_event and SMC statistics tell modes
 *   smc_link.ibname       the RDMA device of a link
 *   smc_sock.clcsock      the TCP socket under an SMC socket
 *   smc_sock.listen_smc   the listening SMC socket of a server side one
 *
 * Nothing is read through them unless all were found and are in bounds of
 * their structs. The BTF comes from the kernel itself, but it is checked
 * like any input: every length, section and string offset is bounded
 * before use. Process context; it sleeps (file reads, kvmalloc).
 */

#include <linux/btf.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dropscope.h"
#include "smc.h"

/* the header up to the string section, as every BTF producer writes it */
#define DS_BTF_HDR_MIN	offsetofend(struct btf_header, str_len)

/* vmlinux's BTF is some 6 MiB; anything far larger is not BTF */
#define DS_BTF_MAX	(64U << 20)

struct ds_btf {
	const u8 *types;	/* the type section */
	u32 types_len;
	const char *str;	/* this BTF's strings */
	u32 str_len;
	const char *base_str;	/* split BTF: vmlinux's strings */
	u32 base_str_len;
};

/* Read a whole file of the kernel's (a sysfs BTF file) into a kvmalloc. */
static void *ds_btf_read_file(const char *path, size_t *len)
{
	struct file *f;
	loff_t pos = 0, size;
	ssize_t n;
	void *buf;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return ERR_CAST(f);
	size = i_size_read(file_inode(f));
	if (size <= 0 || size > DS_BTF_MAX) {
		buf = ERR_PTR(-EFBIG);
		goto out;
	}
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf) {
		buf = ERR_PTR(-ENOMEM);
		goto out;
	}
	/* sysfs gives a page a read */
	while (pos < size) {
		n = kernel_read(f, buf + pos, size - pos, &pos);
		if (n <= 0) {
			kvfree(buf);
			buf = ERR_PTR(n < 0 ? n : -EIO);
			goto out;
		}
	}
	*len = size;
out:
	filp_close(f, NULL);
	return buf;
}

/*
 * The sections of the BTF data of len bytes at data, checked: the header,
 * and sections within the data. The string section must end with a NUL,
 * so that every string in it ends.
 */
static int ds_btf_sections(const void *data, size_t len, const u8 **types,
			   u32 *types_len, const char **str, u32 *str_len)
{
	const struct btf_header *h = data;
	u64 end;

	/*
	 * The header grows at its end (7.x added a layout section): a
	 * producer's may be shorter than this kernel's struct, never shorter
	 * than the sections it reads here
	 */
	if (len < DS_BTF_HDR_MIN || h->magic != BTF_MAGIC || h->version != 1 ||
	    h->hdr_len < DS_BTF_HDR_MIN || h->hdr_len > len)
		return -EINVAL;
	end = (u64)h->hdr_len + h->type_off + h->type_len;
	if (end > len || h->type_off % 4)
		return -EINVAL;
	end = (u64)h->hdr_len + h->str_off + h->str_len;
	if (end > len || !h->str_len)
		return -EINVAL;
	*types = (const u8 *)data + h->hdr_len + h->type_off;
	*types_len = h->type_len;
	*str = (const char *)data + h->hdr_len + h->str_off;
	*str_len = h->str_len;
	return (*str)[*str_len - 1] ? -EINVAL : 0;
}

/* The string at offset off of b's strings (split: vmlinux's first). */
static const char *ds_btf_name(const struct ds_btf *b, u32 off)
{
	if (b->base_str) {
		if (off < b->base_str_len)
			return b->base_str + off;
		off -= b->base_str_len;
	}
	return off < b->str_len ? b->str + off : NULL;
}

/* The bytes that follow a struct btf_type of kind and vlen; -1: unknown */
static s64 ds_btf_extra(u32 kind, u32 vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
		return (s64)vlen * 12;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return (s64)vlen * 8;
	case BTF_KIND_ENUM64:
		return (s64)vlen * 12;
	}
	return -1;
}

/* The struct named name in b, or NULL; checked to lie in b's types. */
static const struct btf_type *ds_btf_struct(const struct ds_btf *b,
					    const char *name)
{
	const struct btf_type *t;
	u32 pos = 0, kind, vlen;
	const char *n;
	s64 extra;

	while (pos + sizeof(*t) <= b->types_len) {
		t = (const struct btf_type *)(b->types + pos);
		kind = BTF_INFO_KIND(t->info);
		vlen = BTF_INFO_VLEN(t->info);
		extra = ds_btf_extra(kind, vlen);
		if (extra < 0 || pos + sizeof(*t) + extra > b->types_len)
			return NULL;
		if (kind == BTF_KIND_STRUCT) {
			n = ds_btf_name(b, t->name_off);
			if (n && !strcmp(n, name))
				return t;
		}
		pos += sizeof(*t) + extra;
	}
	return NULL;
}

/*
 * The byte offset of member name of struct t, and the offset where the
 * next member begins (or the struct's end): -ENOENT if t has no such
 * member, -EINVAL for a bit field.
 */
static int ds_btf_member(const struct ds_btf *b, const struct btf_type *t,
			 const char *name, u32 *off, u32 *next)
{
	const struct btf_member *m = (const struct btf_member *)(t + 1);
	u32 i, vlen = BTF_INFO_VLEN(t->info), bits;
	bool kflag = BTF_INFO_KFLAG(t->info);
	const char *n;

	for (i = 0; i < vlen; i++) {
		n = ds_btf_name(b, m[i].name_off);
		if (!n || strcmp(n, name))
			continue;
		bits = kflag ? BTF_MEMBER_BIT_OFFSET(m[i].offset) : m[i].offset;
		if ((kflag && BTF_MEMBER_BITFIELD_SIZE(m[i].offset)) ||
		    bits % 8 || bits / 8 >= t->size)
			return -EINVAL;
		*off = bits / 8;
		*next = t->size;
		if (i + 1 < vlen) {
			bits = kflag ? BTF_MEMBER_BIT_OFFSET(m[i + 1].offset) :
				       m[i + 1].offset;
			if (bits / 8 > *off && bits / 8 < *next)
				*next = bits / 8;
		}
		return 0;
	}
	return -ENOENT;
}

/* A member that holds a pointer, within its struct. */
static int ds_btf_ptr_member(const struct ds_btf *b, const struct btf_type *t,
			     const char *name, u32 *off)
{
	u32 next;
	int err = ds_btf_member(b, t, name, off, &next);

	if (!err && next - *off < sizeof(void *))
		err = -EINVAL;
	return err;
}

/* The layout from b, the BTF that describes SMC. */
static int ds_btf_smc_layout(const struct ds_btf *b, struct ds_smc_layout *l)
{
	const struct btf_type *sock, *conn, *link;
	u32 conn_off, lnk_off, ib_off, ib_next, size;
	int err;

	sock = ds_btf_struct(b, "smc_sock");
	conn = ds_btf_struct(b, "smc_connection");
	link = ds_btf_struct(b, "smc_link");
	if (!sock || !conn || !link)
		return -ENOENT;
	err = ds_btf_member(b, sock, "conn", &conn_off, &size);
	if (!err)
		err = ds_btf_ptr_member(b, conn, "lnk", &lnk_off);
	if (!err)
		err = ds_btf_ptr_member(b, sock, "clcsock", &l->clcsock);
	if (!err)
		err = ds_btf_ptr_member(b, sock, "listen_smc", &l->listen_smc);
	if (!err)
		err = ds_btf_member(b, link, "ibname", &ib_off, &ib_next);
	if (err)
		return err;
	/* conn is a struct smc_connection, whole within the socket */
	if (size - conn_off < conn->size || lnk_off + sizeof(void *) > conn->size)
		return -EINVAL;
	l->conn_lnk = conn_off + lnk_off;
	l->ibname = ib_off;
	l->ibname_len = min_t(u32, ib_next - ib_off, DS_SMC_DEV_NAME);
	return l->ibname_len ? 0 : -EINVAL;
}

/*
 * Resolve l for smc.ko whose BTF is the split BTF of btf_len bytes at btf
 * (NULL: read /sys/kernel/btf/smc), or, with builtin, for SMC built into
 * vmlinux. l->known is set only if every offset was found.
 */
int ds_smc_btf_resolve(struct ds_smc_layout *l, const void *btf,
		       size_t btf_len, bool builtin)
{
	void *vmlinux = NULL, *file = NULL;
	struct ds_btf b = {};
	size_t vlen = 0;
	const u8 *vt;
	u32 vt_len;
	int err;

	memset(l, 0, sizeof(*l));
	vmlinux = ds_btf_read_file("/sys/kernel/btf/vmlinux", &vlen);
	if (IS_ERR(vmlinux)) {
		err = PTR_ERR(vmlinux);
		vmlinux = NULL;
		goto out;
	}
	err = ds_btf_sections(vmlinux, vlen, &vt, &vt_len, &b.base_str,
			      &b.base_str_len);
	if (err)
		goto out;
	if (builtin) {
		b.types = vt;
		b.types_len = vt_len;
		b.str = b.base_str;
		b.str_len = b.base_str_len;
		b.base_str = NULL;
		b.base_str_len = 0;
	} else {
		if (!btf) {
			file = ds_btf_read_file("/sys/kernel/btf/smc", &btf_len);
			if (IS_ERR(file)) {
				err = PTR_ERR(file);
				file = NULL;
				goto out;
			}
			btf = file;
		}
		err = ds_btf_sections(btf, btf_len, &b.types, &b.types_len,
				      &b.str, &b.str_len);
		if (err)
			goto out;
	}
	err = ds_btf_smc_layout(&b, l);
	l->known = !err;
out:
	kvfree(file);
	kvfree(vmlinux);
	if (err) {
		memset(l, 0, sizeof(*l));
		pr_info("no layout of SMC's sockets in BTF (%d): SMC modes, devices and sessions are not told\n",
			err);
	}
	return err;
}
