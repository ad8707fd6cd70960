# dropscope: the kernel module, the CLI, tests and the lab.
#
#   make                   module for the running kernel + CLI
#   make KVER=<release>    module against that release's installed headers
#   make check             everything CI runs (installs what it needs)
#   make check-debug       the lab suite on a debug kernel (KASAN, lockdep,
#                          kmemleak...), built once per machine; not in check
#   make lab [K=KERNEL]    boot a lab kernel under QEMU with dropscope and
#                          traffic: sid (Debian unstable's newest, the
#                          default), sid-rt (its PREEMPT_RT), 6.1, 6.12, rt
#   make lab KERNEL=BZIMAGE KDIR=TREE   ... a kernel of one's own instead
#   make check KERNEL=BZIMAGE KDIR=TREE the lab suite on it
#   make bench             instruction cost per drop and per TCP session
#                          (6.12; the drop rows on sid too)
#   make profile [K=...]   where a drop's instructions go, per function, with
#                          and without a monitor (a TCG plugin counts them)
#   make spec-check        the YNL spec against the uapi header and kmod/
#   make checkpatch        the kernel's checkpatch.pl --strict on kmod/, uapi
#   make install           module for KVER into /lib/modules/KVER/updates, CLI,
#                          man pages, bash completion under PREFIX (DESTDIR)
#   make uninstall         what install put there
#   make dkms-install      the module's source to DKMS, built and installed for
#                          every kernel with headers; dkms-uninstall removes it
#   make deb               Debian packages dropscope and dropscope-dkms (build/deb)

# A kernel of one's own: make KDIR=/path/to/its/build/tree (configured and
# built; O= trees too) builds the module for its release; make lab and make
# check boot it with KERNEL=/path/to/its/bzImage.
ifneq ($(filter command line environment,$(origin KDIR)),)
OWN_KDIR := $(KDIR)
KVER := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
ifeq ($(KVER),)
$(error KDIR=$(KDIR) is not a built kernel tree (no include/config/kernel.release))
endif
endif
KVER ?= $(shell uname -r)
# Debian unstable's kernels (scripts/sid-kernels) are not installed: their
# build trees are in the machine's cache
SID_CACHE := $(or $(DROPSCOPE_CACHE),/var/cache/dropscope)/sid
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build $(SID_CACHE)/$(KVER)/obj) \
	/lib/modules/$(KVER)/build)
KBUILD_OUT := build/kmod/$(KVER)
# make module PREEMPT_TEST=1: with the preemptible-probe test (kmod/ptest.c),
# in a tree of its own; the module users load never has it
ifdef PREEMPT_TEST
KBUILD_OUT := build/kmod-ptest/$(KVER)
PTEST_FLAGS := DS_PREEMPT_TEST=1
endif
KSRC := include $(wildcard kmod/Kbuild kmod/*.c kmod/*.h kmod/*.mk kmod/smc/*.[ch])

CC ?= cc
PKGS := libnl-genl-3.0 libnl-3.0
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -Iinclude/uapi -Iuser \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS_NL := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS_CLI := $(LDLIBS_NL) -lpthread
# The libraries that only some commands use, opened when first needed
# (user/lib/dl.c) by the names they are installed under: their SONAMEs,
# read from the development links the build has
soname = $(or $(shell objdump -p $$($(CC) -print-file-name=lib$(1).so) \
	2>/dev/null | sed -n 's/^ *SONAME *//p'),$(error lib$(1).so: no such library with a SONAME (scripts/deps installs it)))
DL_FLAGS = -DDS_SO_PCAP='"$(call soname,pcap)"' \
	-DDS_SO_MHD='"$(call soname,microhttpd)"' \
	-DDS_SO_DW='"$(call soname,dw)"' \
	-DDS_SO_READLINE='"$(call soname,readline)"'

# user/lib/: the library (transport, model, names, loop, printing), and
# user/smc/lib.c, SMC's part of it;
# user/: the shell (main.c, cmd.c, complete.c) and the command files
LIB_SRC := $(wildcard user/lib/*.c) user/smc/lib.c
CLI_SRC := user/main.c user/cmd.c user/complete.c user/watch.c user/rules.c \
	user/sessions.c user/top.c user/smc/cmd.c user/capture.c user/export.c \
	user/record.c user/run.c user/stacks.c \
	$(LIB_SRC)
CLI_LIB := $(filter-out user/main.c,$(CLI_SRC))
CLI_HDR := $(wildcard user/*.h user/lib/*.h user/smc/*.h) include/uapi/linux/dropscope.h

.PHONY: all module user clean check check-debug lab bench deps kernels unit \
	testbins spec-check checkpatch man-check install install-cli install-module \
	uninstall dkms-install dkms-uninstall dkms-source deb profile cli-cflags kdir \
	oracle

all: module user

user: user/dropscope

# the build tree of KVER (scripts/bench builds its probes against it)
kdir:
	@echo $(KDIR)

# the flags the CLI's files build with, quoted for sh (tests/host/layers.sh)
cli-cflags:
	@printf '%s\n' "$(subst ",\",$(CFLAGS) $(DL_FLAGS))"

user/dropscope: $(CLI_SRC) $(CLI_HDR)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DL_FLAGS) $(LDFLAGS) -o $@ $(CLI_SRC) $(LDLIBS_CLI)

# Each kernel release builds in a tree of its own under build/kmod, so that
# the lab kernels can be built side by side; the last one built is also
# copied to kmod/dropscope.ko.
module:
	@test -d $(KDIR) || { echo "no kernel headers in $(KDIR):" \
		"install linux-headers-$(KVER), or make KVER=<release> with" \
		"one of: $$(ls /lib/modules | tr '\n' ' ')" >&2; exit 1; }
	@mkdir -p $(KBUILD_OUT)/kmod/smc
	@for f in $(KSRC); do ln -sfn $(CURDIR)/$$f $(KBUILD_OUT)/$$f; done
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KBUILD_OUT)/kmod $(KFLAGS) $(PTEST_FLAGS) \
		$(if $(findstring $(SID_CACHE)/,$(KDIR)),CHECK=$(SID_CACHE)/sparse/sparse) modules
	$(if $(PREEMPT_TEST),,cp $(KBUILD_OUT)/kmod/dropscope.ko kmod/dropscope.ko)

# The offsets of the members the lab's bpftrace oracles read, from the
# kernel's own headers (tests/lab/offsets.c): build/oracle/KVER/offsets
ORACLE_OUT := build/oracle/$(KVER)
oracle:
	@mkdir -p $(ORACLE_OUT)
	@ln -sfn $(CURDIR)/tests/lab/offsets.c $(ORACLE_OUT)/offsets.c
	@echo 'obj-m := offsets.o' > $(ORACLE_OUT)/Kbuild
	@$(MAKE) -s -C $(KDIR) M=$(CURDIR)/$(ORACLE_OUT) offsets.s
	@sed -n 's/.*->\([A-Z_]*\) \$$\{0,1\}\([0-9][0-9]*\).*/\1 \2/p' \
		$(ORACLE_OUT)/offsets.s > $(ORACLE_OUT)/offsets
	@test "$$(wc -l < $(ORACLE_OUT)/offsets)" = 7 || \
		{ echo "oracle: no offsets in $(ORACLE_OUT)/offsets.s" >&2; exit 1; }

# Every lab kernel (6.1, 6.12, 6.12 PREEMPT_RT, unstable's plain and
# PREEMPT_RT) with W=1 and sparse (which must have run), and
# the build with the preemptible-probe test for the lab; any warning fails.
# The kernels build side by side (make -j): one's serial steps (modpost,
# BTF, the link) leave a CPU to another's compiles.
kernels:
	@ks=$$(scripts/kernels) && \
		$(MAKE) --no-print-directory $$(printf 'kernel-%s ' $$ks)

kernel-%:
	@mkdir -p build
	@set -e; k=$*; for t in "" 1; do \
		$(MAKE) --no-silent --no-print-directory module KVER=$$k PREEMPT_TEST=$$t KFLAGS="W=1 C=2" \
			> build/kmod-$$k$${t:+-ptest}.log 2>&1 || \
			{ cat build/kmod-$$k$${t:+-ptest}.log; exit 1; }; \
		if grep -E "warning:|error:" build/kmod-$$k$${t:+-ptest}.log; then \
			echo "module: warnings with $$k" >&2; exit 1; fi; \
		grep -q "^  CHECK " build/kmod-$$k$${t:+-ptest}.log || \
			{ echo "module: sparse did not run with $$k" >&2; exit 1; }; \
	done; \
	echo "module: $$k built clean with W=1 and sparse (and PREEMPT_TEST=1)"; \
	$(MAKE) --no-print-directory oracle KVER=$$k; \
	scripts/netdevsim $$k > /dev/null

tests/unit/test_cli: tests/unit/test_cli.c $(CLI_LIB) $(CLI_HDR)
	$(CC) $(CFLAGS) $(DL_FLAGS) -o $@ tests/unit/test_cli.c $(CLI_LIB) $(LDLIBS_NL) -lpthread -lcmocka

tests/unit/test_lib: tests/unit/test_lib.c $(LIB_SRC) $(CLI_HDR)
	$(CC) $(CFLAGS) $(DL_FLAGS) -o $@ tests/unit/test_lib.c $(LIB_SRC) $(LDLIBS_NL) -lcmocka

unit: tests/unit/test_cli tests/unit/test_lib
	tests/unit/test_cli
	tests/unit/test_lib

tests/lab/bin/dropgen: tests/lab/dropgen.c tests/lab/gentime.h
	@mkdir -p tests/lab/bin
	$(CC) $(CFLAGS) -o $@ $<

tests/lab/bin/nlpoke: tests/lab/nlpoke.c user/lib/nl.c $(CLI_HDR)
	@mkdir -p tests/lab/bin
	$(CC) $(CFLAGS) -D_GNU_SOURCE -o $@ tests/lab/nlpoke.c user/lib/nl.c $(LDLIBS_NL)

tests/lab/bin/tcpgen: tests/lab/tcpgen.c tests/lab/genio.h tests/lab/gentime.h
	@mkdir -p tests/lab/bin
	$(CC) $(CFLAGS) -o $@ $<

tests/lab/bin/smcgen: tests/lab/smcgen.c tests/lab/genio.h tests/lab/gentime.h
	@mkdir -p tests/lab/bin
	$(CC) $(CFLAGS) -o $@ $<

tests/lab/bin/sessgen: tests/lab/sessgen.c tests/lab/gentime.h
	@mkdir -p tests/lab/bin
	$(CC) $(CFLAGS) -o $@ $<

# The netlink fuzzer: raw sockets, no library between it and the kernel.
tests/fuzz/bin/nlfuzz: tests/fuzz/nlfuzz.c include/uapi/linux/dropscope.h
	@mkdir -p tests/fuzz/bin
	$(CC) $(CFLAGS) -o $@ $<


testbins: tests/lab/bin/dropgen tests/lab/bin/nlpoke tests/lab/bin/tcpgen \
	tests/lab/bin/sessgen tests/lab/bin/smcgen tests/fuzz/bin/nlfuzz

deps:
	scripts/deps

# Documentation/netlink/specs/dropscope.yaml: valid against the kernel's
# schema, and the same constants and policies as the header and kmod/.
spec-check:
	scripts/spec-check

checkpatch:
	scripts/checkpatch

# The man pages: man --warnings says nothing of any, and dropscope(8)
# names every other in SEE ALSO
MAN := $(wildcard man/*.8)
man-check:
	@for m in $(MAN); do \
		w=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 $$m 2>&1 >/dev/null); \
		[ -z "$$w" ] || { echo "$$m: $$w" >&2; exit 1; }; \
		[ $$m = man/dropscope.8 ] || grep -q "^\.BR $$(basename $$m .8 | sed 's/-/\\\\-/')" man/dropscope.8 || \
			{ echo "man/dropscope.8 does not name $$m" >&2; exit 1; }; \
	done; echo "man-check: $(words $(MAN)) pages, no warning"

# T="NAME..." [K=6.1|6.12|rt|sid|sid-rt]: only those lab tests, on that kernel
check:
	T="$(T)" K="$(K)" KERNEL="$(KERNEL)" OWN_KDIR="$(OWN_KDIR)" scripts/check

check-debug:
	scripts/check-debug

lab: deps
	K="$(K)" KERNEL="$(KERNEL)" OWN_KDIR="$(OWN_KDIR)" scripts/demo

bench: deps
	scripts/bench

profile: deps
	K="$(K)" scripts/profile

# --- installing -----------------------------------------------------------
VERSION := $(shell sed -n 's/^\#define DS_VERSION "\(.*\)"/\1/p' user/main.c)
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR ?= $(PREFIX)/share/doc/dropscope
MODDIR ?= /lib/modules/$(KVER)/updates
# the module's source, as DKMS and the -dkms package take it
DKMS_SRC := Makefile dkms.conf include/uapi/linux/dropscope.h \
	$(wildcard kmod/Kbuild kmod/*.c kmod/*.h kmod/*.mk kmod/smc/*.[ch])
DKMS_DIR ?= /usr/src/dropscope-$(VERSION)

build/dropscope.bash: user/dropscope
	@mkdir -p build
	user/dropscope completion bash > $@

install: install-module install-cli

install-cli: user/dropscope build/dropscope.bash
	install -D -m 0755 user/dropscope $(DESTDIR)$(SBINDIR)/dropscope
	for m in $(MAN); do install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man8/$${m#man/}; done
	install -D -m 0644 build/dropscope.bash $(DESTDIR)$(BASHCOMPDIR)/dropscope
	for e in examples/*.rules; do install -D -m 0644 $$e $(DESTDIR)$(DOCDIR)/$$e; done

# depmod only for the system itself: a DESTDIR is someone else's tree
install-module: module
	install -D -m 0644 $(KBUILD_OUT)/kmod/dropscope.ko $(DESTDIR)$(MODDIR)/dropscope.ko
	if [ -z "$(DESTDIR)" ]; then depmod $(KVER); fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/dropscope $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN))) \
		$(DESTDIR)$(BASHCOMPDIR)/dropscope $(DESTDIR)$(MODDIR)/dropscope.ko \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(wildcard examples/*.rules))
	if [ -z "$(DESTDIR)" ] && [ -d /lib/modules/$(KVER) ]; then depmod $(KVER); fi

# The source DKMS builds from: DKMS_DIR (DESTDIR-relative)
dkms-source:
	@grep -q '^PACKAGE_VERSION="$(VERSION)"$$' dkms.conf || \
		{ echo "dkms.conf's PACKAGE_VERSION is not $(VERSION)" >&2; exit 1; }
	rm -rf $(DESTDIR)$(DKMS_DIR)
	for f in $(DKMS_SRC); do install -D -m 0644 $$f $(DESTDIR)$(DKMS_DIR)/$$f; done

# Every kernel with headers: built and installed (then modprobe dropscope)
dkms-install: dkms-source
	dkms add -m dropscope -v $(VERSION) 2>/dev/null || \
		dkms status -m dropscope -v $(VERSION) | grep -q .
	set -e; for k in $$(ls /lib/modules); do \
		[ -e /lib/modules/$$k/build/Makefile ] || continue; \
		dkms build -m dropscope -v $(VERSION) -k $$k; \
		dkms install -m dropscope -v $(VERSION) -k $$k --force; \
	done

dkms-uninstall:
	dkms remove -m dropscope -v $(VERSION) --all 2>/dev/null || true
	rm -rf $(DKMS_DIR)

deb:
	scripts/deb $(VERSION)

clean:
	rm -rf build kmod/dropscope.ko user/dropscope tests/unit/test_* tests/lab/bin tests/fuzz/bin
