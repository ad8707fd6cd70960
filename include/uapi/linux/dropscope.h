/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * dropscope: a drop-site monitor for the Linux kernel.
 *
 * Documentation
 * =============
 *
 * dropscope.ko speaks generic netlink. The family is DROPSCOPE_GENL_NAME,
 * version DROPSCOPE_GENL_VERSION, and it has one multicast group,
 * DROPSCOPE_MCGRP_ALERTS. The family lives in the initial network namespace
 * only: the module watches every drop of the machine.
 *
 * Permissions: every command and the alert group require CAP_NET_ADMIN in
 * the initial user namespace. Dumps and alerts carry kernel text addresses
 * (DROPSCOPE_SITE_A_LOCATION), which an unprivileged user must never see.
 *
 * All policies are strict: an attribute that a command does not take, an
 * attribute of the wrong type or size, or a value out of range is refused
 * with -EINVAL (or -ERANGE) and an extended ack message naming the
 * offending attribute. A refused request changes nothing.
 *
 * What is counted: the module attaches to the skb:kfree_skb tracepoint while
 * monitoring runs (DROPSCOPE_CMD_START .. DROPSCOPE_CMD_STOP) and counts each
 * drop under the key (location, reason) in a per-CPU table. The table holds
 * DROPSCOPE_A_CAPACITY distinct keys per CPU; a drop whose key does not fit
 * is counted in DROPSCOPE_STATS_A_OVERFLOW, so that the sum of all site
 * counts plus the overflow always equals the number of drops seen.
 *
 * Alerts: every DROPSCOPE_A_INTERVAL_MS milliseconds the per-CPU counters are
 * folded into one total per site. If anything changed, and somebody listens
 * on the alert group, one alert round is multicast: one or more
 * DROPSCOPE_CMD_ALERT messages, each carrying DROPSCOPE_A_ROUND and as many
 * DROPSCOPE_A_SITE nests (one per site that changed, merged across CPUs) as
 * fit. The last message of a round carries DROPSCOPE_A_ROUND_END. A round
 * also carries DROPSCOPE_A_OVERFLOW_DELTA when the overflow counter moved.
 * Stopping sends a final round with what changed since the last one. Alert
 * messages that could not be delivered to some listener (its receive buffer
 * was full) are counted in DROPSCOPE_STATS_A_ALERTS_LOST when that listener
 * set the NETLINK_BROADCAST_ERROR socket option (the CLI does: without it
 * the kernel does not tell the sender); every such listener sees ENOBUFS
 * on its socket.
 *
 * Commands
 * --------
 *
 * DROPSCOPE_CMD_START: starts monitoring. Totals start again from zero.
 *     Takes DROPSCOPE_A_PARTS (NLA_U32, enum dropscope_part bits): the
 *     parts to start; absent, every part. 0 or an unknown bit is refused.
 *     Fails with -EALREADY if monitoring runs.
 *
 * DROPSCOPE_CMD_STOP: stops monitoring (detaches from the tracepoint: no cost
 *     while stopped) and sends the final alert round. Totals remain readable.
 *     Fails with -EALREADY if monitoring is not running.
 *
 * DROPSCOPE_CMD_CONFIG_GET: replies with
 *     DROPSCOPE_A_RUNNING: NLA_U8, 1 while monitoring
 *     DROPSCOPE_A_INTERVAL_MS: NLA_U32, the alert interval
 *     DROPSCOPE_A_CAPACITY: NLA_U32, distinct keys per CPU (module parameter)
 *     DROPSCOPE_A_PARTS: NLA_U32, the parts running (0 while stopped)
 *     DROPSCOPE_A_SESSIONS_CAPACITY, _CLOSED_CAPACITY: NLA_U32, live
 *         sessions tracked at once and closes kept (module parameters)
 *     DROPSCOPE_A_RUNS: NLA_U32, the runs in progress (DROPSCOPE_CMD_RUN_START)
 *
 * DROPSCOPE_CMD_CONFIG_SET: takes
 *     DROPSCOPE_A_INTERVAL_MS: NLA_U32, DROPSCOPE_INTERVAL_MIN_MS to
 *         DROPSCOPE_INTERVAL_MAX_MS; takes effect at once, also while running.
 *     DROPSCOPE_A_THRESHOLD: NLA_U32, a site is alerted only once its drops
 *         since its last alert reach this many (0 and 1: every change)
 *     DROPSCOPE_A_TOP: NLA_U32, at most this many sites per round, the
 *         largest deltas; the others are counted in TOP_SUPPRESSED (0: all)
 *     DROPSCOPE_A_RATELIMIT: NLA_U32, at most this many alert messages per
 *         second; what the cap holds back is counted in RATELIMITED (0: none)
 *     DROPSCOPE_A_SESS_EVENTS: NLA_U32, the session events the asking
 *         socket wants (DROPSCOPE_SESS_EVENTS_*; 0: none): the module
 *         records the events any socket wants, while DROPSCOPE_PART_TCP
 *         runs, until that socket says 0 or is closed. At most
 *         DROPSCOPE_MAX_EVENT_SOCKS sockets at once (-ENOSPC).
 *     At least one attribute is required. CONFIG_GET replies with all of
 *     them, and DROPSCOPE_A_RULES (NLA_U32), the number of rules;
 *     DROPSCOPE_A_STACKS (NLA_U8), 1 while stacks are taken, with the
 *     stacks rule as a DROPSCOPE_A_RULE nest when there is one; and
 *     DROPSCOPE_A_STACKS_CAPACITY (NLA_U32), stacks= of the module; and
 *     DROPSCOPE_A_SESS_EVENTS (NLA_U32), the events recorded (what all
 *     the sockets that asked want).
 *
 * DROPSCOPE_CMD_RUN_START: takes DROPSCOPE_A_RUN_CGROUP, NLA_U64, the id of
 *     a cgroup (v2; the inode number of its directory), and begins a run
 *     of that cgroup: its scope is the cgroup, every cgroup below it, and
 *     every network namespace that a task of those cgroups creates from now
 *     on (a pernet init runs in the creating task), wherever the task is.
 *     Until the run ends, a drop whose socket (the skb's, or the one it was
 *     received for) belongs to the scope's cgroups, or whose socket or
 *     device is in the scope's namespaces, is counted in a site of its own
 *     (DROPSCOPE_SITE_A_RUN, keyed by the netns too), and a session born of
 *     such a socket is marked so (DROPSCOPE_SESSION_A_RUN). A drop is
 *     counted to one run at most. Replies with DROPSCOPE_A_RUN, NLA_U32,
 *     the run's id (1 to DROPSCOPE_MAX_RUNS). A run holds monitoring: when
 *     none runs, the run starts it with every part, and the last run to
 *     end stops it, unless DROPSCOPE_CMD_START or _STOP came in between.
 *     At most DROPSCOPE_MAX_RUNS at once (-EBUSY); -EBUSY too for a cgroup
 *     that is, is above or is below another run's; -ENOENT for an id no
 *     cgroup has. Nothing changes when it fails.
 *
 * DROPSCOPE_CMD_RUN_STOP: takes DROPSCOPE_A_RUN and ends that run, which
 *     only the socket that started it can do (-EPERM); its sites stay. A
 *     run ends too when that socket is closed.
 *
 * DROPSCOPE_CMD_RUN_NETNS_GET: takes DROPSCOPE_A_NETNS_FD, NLA_U32, a file
 *     descriptor of the sender's that refers to a network namespace (as
 *     /run/netns/NAME or /proc/PID/ns/net opened), and replies with
 *     DROPSCOPE_A_RUN, the run whose scope it is in (0: none), and
 *     DROPSCOPE_A_NETNS, NLA_U32, its inode, as sites give it. A name
 *     "ip netns" gives a namespace is the run's to report only while the
 *     namespace is the run's: inodes are used again once a namespace is
 *     gone.
 *
 * DROPSCOPE_CMD_SITES_GET (dump): one message per site with one
 *     DROPSCOPE_A_SITE nest, sorted by nothing in particular. Totals are
 *     folded from the per-CPU counters when the dump starts.
 *
 * DROPSCOPE_CMD_REASONS_GET (dump): one message per drop reason the running
 *     kernel knows, with one DROPSCOPE_A_REASON nest. Reason ids and names
 *     are the running kernel's; they differ between kernel versions.
 *
 * DROPSCOPE_CMD_STATS_GET: replies with one DROPSCOPE_A_STATS nest.
 *
 * DROPSCOPE_CMD_RESET: sets every total and statistic back to zero. The
 *     per-CPU tables keep their keys while monitoring runs (a running probe
 *     owns them); a reset while stopped empties them.
 *
 * DROPSCOPE_CMD_ALERT: sent by the kernel only, on DROPSCOPE_MCGRP_ALERTS.
 *
 * DROPSCOPE_CMD_RULE_ADD: takes one DROPSCOPE_A_RULE nest (see below) and
 *     replies with the rule, its DROPSCOPE_RULE_A_ID included. At most
 *     DROPSCOPE_MAX_RULES rules. A rule matches a drop when every field it
 *     has matches. A drop that matches a MASK rule is masked, counted in
 *     the first such rule's hits; if there are ONLY rules, a drop that
 *     matches none of them is masked too; else it is shown (and counted in
 *     the hits of the first ONLY rule it matches). Masked drops are counted
 *     (DROPSCOPE_SITE_A_MASKED, DROPSCOPE_STATS_A_MASKED), never alerted.
 *     Rules are applied when the per-CPU counters are folded, which happens
 *     right before any rule change: a drop is judged by the rules in force
 *     at the fold that first counts it. Rules survive stop and start.
 *
 * DROPSCOPE_CMD_RULE_DEL: takes DROPSCOPE_A_RULE with DROPSCOPE_RULE_A_ID.
 *
 * DROPSCOPE_CMD_RULE_GET (dump): one message per rule, in match order.
 *
 * DROPSCOPE_CMD_RULE_CLEAR: removes every rule.
 *
 * DROPSCOPE_CMD_SESSIONS_GET (dump): one message per live TCP session with
 *     one DROPSCOPE_A_SESSION nest, its counters read from the socket as
 *     the dump reaches it. A session lives from its socket's first state
 *     change (SYN_SENT or SYN_RECV) after DROPSCOPE_PART_TCP started, or
 *     from that start for one open then (DROPSCOPE_SESSION_A_FOUND), to
 *     TCP_CLOSE. Stopping the part forgets the live sessions.
 *
 * DROPSCOPE_CMD_CLOSED_GET (dump): one message per closed session still in
 *     the ring of recent closes (DROPSCOPE_A_CLOSED_CAPACITY of them),
 *     oldest first, with its numbers at TCP_CLOSE. A close read by this
 *     dump, or multicast to a listener in an alert round, is read; one
 *     overwritten unread is counted in DROPSCOPE_STATS_A_SESSIONS_UNREAD.
 *     Alert rounds carry one DROPSCOPE_A_SESSION nest per close since the
 *     last round.
 *
 * Session events: while some socket wants them (DROPSCOPE_A_SESS_EVENTS),
 *     each TCP state change (DROPSCOPE_SESS_EVENTS_STATES), and each
 *     retransmit and tail loss probe (DROPSCOPE_SESS_EVENTS_RETRANS), goes
 *     into a ring of DROPSCOPE_SESS_EVENTS_RING; alert rounds carry one
 *     DROPSCOPE_A_SESS_EVENT nest per event since the last round, in the
 *     order they happened, and DROPSCOPE_A_SESS_EVENTS_LOST_DELTA (NLA_U64)
 *     for those overwritten before a round carried them (also in
 *     DROPSCOPE_STATS_A_SESS_EVENTS_LOST).
 *
 * DROPSCOPE_CMD_SMC_GET: replies with one DROPSCOPE_A_SMC nest, what
 *     DROPSCOPE_PART_SMC counted since start or reset, and one
 *     DROPSCOPE_A_SMC_FALLBACK nest per (reason, side) that fell back since
 *     then, and one DROPSCOPE_A_SMC_OWNER nest per (reason, side, owner).
 *     The part watches for smc.ko rather than pinning it: it hooks
 *     the SMC tracepoints whenever smc.ko loads, also after start, and
 *     unhooks them when smc.ko goes; the totals stay. Alert rounds carry
 *     one DROPSCOPE_A_SMC_FALLBACK nest per (reason, side) and one
 *     DROPSCOPE_A_SMC_OWNER nest per (reason, side, owner) that fell back
 *     in the round, and DROPSCOPE_A_SMC_LINK_DOWNS_DELTA when SMC-R links
 *     went down.
 *
 * DROPSCOPE_CMD_TRAPS_GET (dump): one message per trap with one
 *     DROPSCOPE_A_TRAP nest: packets a device trapped and reported
 *     through devlink_trap_report() (the devlink:devlink_trap_report
 *     tracepoint), counted by DROPSCOPE_PART_HW per (devlink instance,
 *     trap, input port) in per-CPU tables of the module parameter traps=
 *     keys (DROPSCOPE_A_TRAPS_CAPACITY); a report that finds its CPU's
 *     table full is counted in DROPSCOPE_STATS_A_TRAPS_OVERFLOW. Traps of
 *     type drop and exception; control traps (packets a device hands to
 *     the stack on purpose) are not drops and are not counted. Drivers
 *     free trapped packets with consume_skb(): they are in no site.
 *     Alert rounds carry one DROPSCOPE_A_TRAP nest per trap that counted.
 *
 * DROPSCOPE_CMD_DEVCTRS_GET (dump): one message per device counter that
 *     moved since start, with one DROPSCOPE_A_DEVCTR nest. DROPSCOPE_PART_
 *     DEV reads every device of every netns at each interval (as
 *     /proc/net/dev reads them) and counts what each drop counter of
 *     enum dropscope_dev_counter gained: a device present at start from
 *     its values then, one that appears later from zero. A device that
 *     goes keeps its totals. Alert rounds carry one DROPSCOPE_A_DEVCTR
 *     nest per counter that moved.
 *
 * DROPSCOPE_CMD_QDISCS_GET (dump): one message per qdisc key with one
 *     DROPSCOPE_A_QDISC nest: packets a qdisc dropped with a qdisc drop
 *     reason (the qdisc:qdisc_drop tracepoint, Linux 7.0 and later),
 *     counted by DROPSCOPE_PART_QDISC per (device, qdisc kind, handle,
 *     reason) in per-CPU tables of the module parameter qdiscs= keys
 *     (DROPSCOPE_A_QDISCS_CAPACITY); a drop that finds its CPU's table full
 *     is counted in DROPSCOPE_STATS_A_QDISCS_OVERFLOW. The kernel frees
 *     each of these packets with SKB_DROP_REASON_QDISC_DROP right after:
 *     it is in a site of the kernel layer too. On a kernel without the
 *     tracepoint the part is absent (DROPSCOPE_A_PARTS_ABSENT) and starts
 *     as a no-op. Alert rounds carry one DROPSCOPE_A_QDISC nest per key
 *     that counted.
 *
 * Nested attributes
 * -----------------
 *
 * DROPSCOPE_A_SITE:
 *     DROPSCOPE_SITE_A_LOCATION: NLA_U64, the kernel text address that freed
 *         the packet (the tracepoint's location)
 *     DROPSCOPE_SITE_A_SYMBOL: NLA_NUL_STRING, the kernel's own rendering of
 *         that address, "sym+0x1c/0x80 [module]"
 *     DROPSCOPE_SITE_A_REASON: NLA_U32, the drop reason id
 *     DROPSCOPE_SITE_A_REASON_NAME: NLA_NUL_STRING, its name ("NO_SOCKET"),
 *         absent if the running kernel has no name for it
 *     DROPSCOPE_SITE_A_TOTAL: NLA_U64, drops since start or reset
 *     DROPSCOPE_SITE_A_DELTA: NLA_U64, in alerts: drops in this round
 *     DROPSCOPE_SITE_A_MASKED: NLA_U64, drops of this site that rules hid
 *     DROPSCOPE_SITE_A_IFINDEX, _NETNS (netns inode), _L3 (ethertype,
 *         host order), _L4 (IP protocol): the packet fields some rule
 *         matches on, which sites are then keyed by too; absent when not
 *         keyed, or not known (0). When every rule on packet fields names
 *         a device, drops that came in on none of them are not keyed.
 *     DROPSCOPE_SITE_A_RUN: NLA_U32, the drops of a run's scope
 *         (DROPSCOPE_CMD_RUN_START), counted apart from the same site's
 *         other drops, and keyed by their netns (DROPSCOPE_SITE_A_NETNS)
 *
 * DROPSCOPE_A_RULE:
 *     DROPSCOPE_RULE_A_ID: NLA_U32, given by the kernel
 *     DROPSCOPE_RULE_A_MODE: NLA_U8, enum dropscope_rule_mode
 *     DROPSCOPE_RULE_A_LOC_START, _LOC_END: NLA_U64, kernel text addresses
 *         [start, end): a function, or one site (end = start + 1)
 *     DROPSCOPE_RULE_A_REASON: NLA_U32, a reason id the running kernel knows
 *     DROPSCOPE_RULE_A_IFINDEX: NLA_U32, the interface the packet came in
 *         on (skb_iif)
 *     DROPSCOPE_RULE_A_NETNS: NLA_U32, the inode of the netns of the
 *         packet's socket, else of its device
 *     DROPSCOPE_RULE_A_L3: NLA_U16, ethertype in host order (0x0800: IPv4)
 *     DROPSCOPE_RULE_A_L4: NLA_U8, IP protocol (6: TCP, 17: UDP); for
 *         IPv6 the first next header
 *     L3 and L4 are not 0: that is what a drop without a readable header
 *     carries.
 *     DROPSCOPE_RULE_A_HITS: NLA_U64, in replies: drops this rule decided
 *     DROPSCOPE_RULE_A_SMC_REASON: NLA_U32, an SMC fallback reason code
 *         (not 0). A rule with it takes no other field, and matches SMC
 *         fallbacks (DROPSCOPE_PART_SMC) only, never a drop; its ONLY
 *         rules decide among SMC fallbacks, the others among drops. A
 *         masked fallback is counted in DROPSCOPE_SMC_FB_A_MASKED and
 *         DROPSCOPE_SMC_A_FALLBACKS_MASKED, never alerted; HITS counts
 *         the fallbacks it decided.
 *     DROPSCOPE_RULE_A_LAYER: NLA_U8, enum dropscope_layer: the rule
 *         matches drops of that layer only. DROPSCOPE_RULE_A_TRAP and
 *         _TRAP_GROUP (NLA_NUL_STRING, a trap's and a trap group's names,
 *         as devlink names them) make a rule of the hw layer, and
 *         DROPSCOPE_RULE_A_DEV_COUNTER (NLA_U8, enum
 *         dropscope_dev_counter) one of the dev layer. A hw rule matches
 *         traps (IFINDEX and NETNS: their input port), a dev rule device
 *         counters (IFINDEX and NETNS: their device); neither takes a
 *         site, reason, L3, L4 or SMC reason.
 *         DROPSCOPE_RULE_A_QDISC_KIND (NLA_NUL_STRING, a qdisc's kind as
 *         tc names it, "fq") makes a rule of the qdisc layer; a qdisc
 *         rule matches qdisc drops (IFINDEX and NETNS: their device).
 *         Among the traps, the device counters and the qdisc drops, rules
 *         decide as among drops: their own ONLY rules, the first MASK
 *         rule that matches. Captures and stacks take rules of the kernel
 *         layer only.
 *
 * DROPSCOPE_CMD_CAPTURE_START: takes one DROPSCOPE_A_CAPTURE nest with
 *     DROPSCOPE_CAPTURE_A_FILTER (optional): a classic BPF program, an
 *         array of struct sock_filter, as libpcap compiles a tcpdump
 *         expression for raw IP packets (DLT_RAW): offsets from the
 *         network header. The module runs it on every drop that passes the
 *         other tests, before copying anything; it is checked by the
 *         kernel's classic BPF checker. Its len is the length from the
 *         network header. Loads of ancillary data, and offsets of 0xff000
 *         and beyond, are refused.
 *     DROPSCOPE_CAPTURE_A_SNAPLEN: NLA_U32, 1 to 65535 (default 65535):
 *         the bytes kept of each packet, from its network header; never
 *         more than 65452, what a packet's nest in a message can hold
 *     DROPSCOPE_CAPTURE_A_ALL: NLA_FLAG: drops the mask rules hide too
 *         (default: the rules' verdict on each drop decides, as it does
 *         for the drops of sessions)
 *     DROPSCOPE_CAPTURE_A_RUN: NLA_U32, a run (DROPSCOPE_CMD_RUN_START):
 *         only the drops of that run and those of no run. The capture
 *         takes none of a later run that has the same id.
 *     DROPSCOPE_CAPTURE_A_PER_KEY: NLA_U32, 1 to 1024: the first N drops
 *         of each key (site and reason) that pass every test, and no more
 *         of that key. DROPSCOPE_CAPTURE_KEYS keys are told apart; a drop
 *         of a key beyond them is counted in DROPSCOPE_CAPTURE_A_LOST_KEYS.
 *         Each packet of such a capture carries its drop's run, stack,
 *         socket and task (DROPSCOPE_PACKET_A_RUN to _COMM).
 *     and, optionally, one DROPSCOPE_A_RULE nest of the fields a mask rule
 *     takes (site, reason, device, netns, l3, l4; no mode, no SMC reason):
 *     only drops that match it are captured. Drops pass the rule, the
 *     mask verdict, then the filter. A drop whose skb has no network
 *     header set (offset 0) is never captured: it is counted in
 *     DROPSCOPE_CAPTURE_A_NO_NETWORK. Needs DROPSCOPE_PART_DROPS running.
 *     At most DROPSCOPE_MAX_CAPTURES at once. Replies with DROPSCOPE_CMD_
 *     CAPTURE and the capture's id. Only the socket that started a capture
 *     receives its packets and may stop it; closing that socket ends it.
 *
 * DROPSCOPE_CMD_CAPTURE_STOP: takes DROPSCOPE_A_CAPTURE with
 *     DROPSCOPE_CAPTURE_A_ID. Sends what is still buffered, then replies
 *     with the capture's counters, DROPSCOPE_CAPTURE_A_END set.
 *
 * DROPSCOPE_CMD_CAPTURE: sent by the kernel to the capturing socket only:
 *     every interval, the packets buffered since the last one, as many
 *     DROPSCOPE_A_PACKET nests as fit a message, with DROPSCOPE_A_CAPTURE
 *     (ID and the counters so far). When the capture ends without a
 *     CAPTURE_STOP (monitoring stopped, the module unloads), a last one
 *     has DROPSCOPE_CAPTURE_A_END.
 *
 * DROPSCOPE_A_CAPTURE counters (NLA_U64): DROPSCOPE_CAPTURE_A_MATCHED,
 *     drops that passed every test; of them _CAPTURED, delivered;
 *     _LOST_BUFFER, that found the CPU's buffer full; _LOST_SOCKET, whose
 *     message the socket had no room for. MATCHED = CAPTURED +
 *     LOST_BUFFER + LOST_SOCKET once the capture has ended. With PER_KEY,
 *     MATCHED is the drops kept (the first N of their key), and
 *     _LOST_KEYS the drops whose key found no room.
 *
 * DROPSCOPE_CMD_STACKS_SET: DROPSCOPE_A_STACKS (NLA_U8): 1 takes the kernel
 *     stack of each drop from then on, 0 stops taking them (the stacks
 *     counted stay). With 1, optionally one DROPSCOPE_A_RULE nest of the
 *     fields a mask rule takes (site, reason, device, netns, l3, l4; no
 *     id, mode or SMC reason): only the drops it matches (the rule's
 *     match, not the mask verdict) have their stack taken; none: every
 *     drop. Each setting replaces the last. Stacks are taken while
 *     DROPSCOPE_PART_DROPS runs. A stack is the return addresses from the
 *     drop site outward, at most DROPSCOPE_STACK_DEPTH frames; the
 *     distinct stacks are counted per CPU in a table of the module
 *     parameter stacks= entries (DROPSCOPE_A_STACKS_CAPACITY), folded with
 *     the sites. A stack that finds the table full is counted under its
 *     site and reason without frames (DROPSCOPE_STACK_A_NO_ROOM);
 *     DROPSCOPE_STACKS_NO_ROOM such entries fit, and what does not fit
 *     there either is counted in DROPSCOPE_STATS_A_STACKS_LOST.
 *
 * DROPSCOPE_CMD_STACKS_CLEAR: forget the stacks counted so far (as
 *     DROPSCOPE_CMD_RESET does, and START); taking them goes on.
 *
 * DROPSCOPE_CMD_STACKS_GET (dump): one message per distinct stack, with
 *     one DROPSCOPE_A_STACK nest:
 *     DROPSCOPE_STACK_A_LOCATION: NLA_U64, the drop site, as in sites
 *     DROPSCOPE_STACK_A_SITE: NLA_NUL_STRING, the site as the kernel prints
 *         it, "sym+0x1c/0x80 [module]" (also for a stack without frames)
 *     DROPSCOPE_STACK_A_REASON: NLA_U32, the drop reason
 *     DROPSCOPE_STACK_A_ID: NLA_U32, the stack's id, a hash of its frames,
 *         site and reason, never 0 (captured packets carry it)
 *     DROPSCOPE_STACK_A_COUNT: NLA_U64, drops with this stack
 *     DROPSCOPE_STACK_A_FRAME: NLA_U64, multi: the frames, the first the
 *         site, its callers after it
 *     DROPSCOPE_STACK_A_SYMBOL: NLA_NUL_STRING, multi: each frame as the
 *         kernel prints it, "sym+0x1c/0x80 [module]", as sites are named
 *     DROPSCOPE_STACK_A_NO_ROOM: NLA_FLAG, the drops of this site and
 *         reason whose stack found no room: no frames
 *     DROPSCOPE_STACK_A_SITELESS: NLA_FLAG, with NO_ROOM: drops whose
 *         stack, as the kernel's unwinder gave it, did not reach the site
 *     The counts of a site's stacks add up to its drops counted while
 *     stacks were on, less DROPSCOPE_STATS_A_STACKS_LOST.
 *
 * DROPSCOPE_A_PACKET:
 *     DROPSCOPE_PACKET_A_TSTAMP: NLA_U64, CLOCK_REALTIME ns of the drop
 *     DROPSCOPE_PACKET_A_LOCATION: NLA_U64, the site, as in sites
 *     DROPSCOPE_PACKET_A_REASON: NLA_U32, the drop reason
 *     DROPSCOPE_PACKET_A_IFINDEX: NLA_U32, the input interface (skb_iif)
 *     DROPSCOPE_PACKET_A_NETNS: NLA_U32, the netns inode (as rules use it)
 *     DROPSCOPE_PACKET_A_PROTOCOL: NLA_U16, skb->protocol, host order
 *     DROPSCOPE_PACKET_A_LEN: NLA_U32, the packet's length from its
 *         network header
 *     DROPSCOPE_PACKET_A_STACK: NLA_U32, the id of the drop's stack
 *         (DROPSCOPE_STACK_A_ID) while stacks are taken for it; absent
 *         otherwise
 *     DROPSCOPE_PACKET_A_DATA: binary, its first snaplen bytes of that
 *     In a capture with DROPSCOPE_CAPTURE_A_PER_KEY only:
 *     DROPSCOPE_PACKET_A_RUN: NLA_U32, the drop's run, 0 for none
 *     DROPSCOPE_PACKET_A_FRAMES: binary, __u64 return addresses from the
 *         drop site outward, the first the site; at most
 *         DROPSCOPE_STACK_DEPTH; absent when the unwinder did not reach
 *         the site, or is not ORC
 *     DROPSCOPE_PACKET_A_SADDR, _DADDR: binary, 4 or 16 bytes: the local
 *         and remote address of the drop's socket (skb->sk, else the
 *         receiving socket where the tracepoint passes one), IPv4 or IPv6
 *     DROPSCOPE_PACKET_A_SPORT, _DPORT: NLA_U16, its local and remote
 *         port, host order; all four only with such a socket
 *     DROPSCOPE_PACKET_A_PID: NLA_U32, _COMM: NLA_NUL_STRING: the process
 *         (thread group) in whose context the packet was freed, for a
 *         drop in task context; absent in interrupts and kernel threads
 *
 * DROPSCOPE_A_SESSION:
 *     DROPSCOPE_SESSION_A_COOKIE: NLA_U64, the socket's cookie (ss -e
 *         shows it as sk:)
 *     DROPSCOPE_SESSION_A_FAMILY: NLA_U8, AF_INET or AF_INET6
 *     DROPSCOPE_SESSION_A_SADDR, _DADDR: binary, 4 or 16 bytes, network order
 *     DROPSCOPE_SESSION_A_SPORT, _DPORT: NLA_U16, host order
 *     DROPSCOPE_SESSION_A_STATE: NLA_U8, the TCP state (TCP_CLOSE: 7)
 *     DROPSCOPE_SESSION_A_PID, _COMM: the owner: the process that
 *         connected; for a passive session the process that accepted it
 *         (a kernel thread owns nothing); for one nobody accepted, or
 *         found at start, the process in whose context it closed or sent
 *         a reset; PID 0 until then
 *     DROPSCOPE_SESSION_A_START_NS: NLA_U64, CLOCK_MONOTONIC at birth
 *     DROPSCOPE_SESSION_A_DURATION_NS: NLA_U64, to the close, or to now
 *     DROPSCOPE_SESSION_A_BYTES_ACKED, _BYTES_RECEIVED: NLA_U64, and
 *     DROPSCOPE_SESSION_A_TOTAL_RETRANS: NLA_U32, the socket's own
 *         bytes_acked, bytes_received and total_retrans, as ss -ti shows
 *     DROPSCOPE_SESSION_A_RESETS_SENT, _RESETS_RECEIVED: NLA_U32, from
 *         tcp:tcp_send_reset and tcp:tcp_receive_reset
 *     DROPSCOPE_SESSION_A_DROPS: NLA_U64, skb:kfree_skb of packets whose
 *         skb->sk (else rx_sk, where the kernel passes it) is the socket,
 *         before its close, while DROPSCOPE_PART_DROPS runs too, less those
 *         the mask rules masked (DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED)
 *     DROPSCOPE_SESSION_A_CLOSED: NLA_FLAG, and DROPSCOPE_SESSION_A_SEQ:
 *         NLA_U64, its number among the closes, for closed sessions
 *     DROPSCOPE_SESSION_A_SMC_MODE: NLA_U8, enum dropscope_smc_mode, for
 *         the TCP socket under an SMC socket while DROPSCOPE_PART_SMC runs
 *         and knows smc.ko's layout (DROPSCOPE_SMC_A_LAYOUT): SMCR or SMCD
 *         from the connection's first SMC send or receive, FALLBACK from
 *         its fallback, with DROPSCOPE_SESSION_A_SMC_REASON: NLA_U32, the
 *         reason code. Absent for other sessions, and for SMC ones that
 *         have not fallen back and not moved data yet.
 *     DROPSCOPE_SESSION_A_RUN: NLA_U32, the run whose scope the socket
 *         was in at the session's birth (an accepted socket has its
 *         listener's cgroup and netns); absent for none
 *     DROPSCOPE_SESSION_A_TCP: binary, struct dropscope_tcp_state, in
 *         DROPSCOPE_CMD_SESSIONS_GET only: the transport state read from
 *         the socket at the dump, as tcp_get_info() (ss -ti) reads it. One
 *         attribute, as INET_DIAG_INFO carries struct tcp_info: a dump of
 *         tens of thousands of sessions pays for each attribute. A reader
 *         takes the fields its length covers; the struct only grows.
 *     DROPSCOPE_SESSION_A_FOUND: NLA_FLAG, the session was open before
 *         start, which found it in the kernel's TCP socket hashes: its
 *         START_NS is that start's, its owner unknown until a process
 *         context touches it; its bytes and retransmits are its socket's
 *         own counters, since the socket's birth
 *
 * DROPSCOPE_A_SMC (all NLA_U64 unless noted):
 *     DROPSCOPE_SMC_A_HOOKED: NLA_U8, the SMC tracepoints hooked: 4 while
 *         the part runs and smc.ko is loaded, else 0
 *     DROPSCOPE_SMC_A_FALLBACKS: fallbacks to TCP (smc:smc_switch_to_
 *         fallback) the mask rules did not hide, the sum of the
 *         DROPSCOPE_A_SMC_FALLBACK totals
 *     DROPSCOPE_SMC_A_FALLBACKS_MASKED: those the mask rules hid
 *     DROPSCOPE_SMC_A_TX_BYTES, _TX_EVENTS: payload bytes that SMC sends
 *         copied to the send buffer, and the copies (smc:smc_tx_sendmsg)
 *     DROPSCOPE_SMC_A_RX_BYTES, _RX_EVENTS: payload bytes copied to
 *         receivers, and the copies (smc:smc_rx_recvmsg)
 *     DROPSCOPE_SMC_A_LINK_DOWNS: SMC-R links that went down
 *         (smc:smcr_link_down)
 *     DROPSCOPE_SMC_A_OVERFLOW: fallbacks whose (reason, side) found no
 *         room in the per-CPU table; FALLBACKS does not count them
 *     DROPSCOPE_SMC_A_OWNERS_OVERFLOW: fallbacks whose (reason, side,
 *         owner) found no room; they are in FALLBACKS, in no
 *         DROPSCOPE_A_SMC_OWNER nest
 *     DROPSCOPE_SMC_A_LAYOUT: NLA_U8, 1 when the layout of smc.ko's
 *         sockets was found in the kernel's BTF: only then are modes,
 *         devices, sessions' SMC modes and server owners told
 *     DROPSCOPE_SMC_A_SMCR_TX_BYTES, _SMCR_TX_EVENTS, _SMCR_RX_BYTES,
 *     _SMCR_RX_EVENTS, and the same of SMCD: TX_BYTES and the others by
 *         mode, SMC-R (the connection has a link) or SMC-D (it has none),
 *         as the kernel's SMC statistics tell them; 0 without the layout
 *     DROPSCOPE_SMC_A_DEVS_OVERFLOW: SMC-R sends and receives on devices
 *         beyond the per-CPU device table; in SMCR_*, in no
 *         DROPSCOPE_A_SMC_DEV nest
 *
 * DROPSCOPE_A_SMC_FALLBACK:
 *     DROPSCOPE_SMC_FB_A_CODE: NLA_U32, the reason code (SMC_CLC_DECL_*,
 *         0x03010000: the peer has no SMC)
 *     DROPSCOPE_SMC_FB_A_SIDE: NLA_U8, enum dropscope_smc_side: the side
 *         of the connection that fell back, as the kernel's fallback
 *         statistics count it
 *     DROPSCOPE_SMC_FB_A_TOTAL: NLA_U64, since start or reset, those the
 *         mask rules did not hide
 *     DROPSCOPE_SMC_FB_A_MASKED: NLA_U64, those they hid (replies only)
 *     DROPSCOPE_SMC_FB_A_DELTA: NLA_U64, in alerts: in this round
 *
 * DROPSCOPE_A_SMC_OWNER: the fallbacks of one reason, side and owner; the
 *     attributes of DROPSCOPE_A_SMC_FALLBACK, and
 *     DROPSCOPE_SMC_FB_A_PID, _COMM: NLA_U32, NLA_NUL_STRING: the process
 *         the fallback ran for (the one that connected, or that set an
 *         option SMC cannot do). On the server side, and for a
 *         non-blocking connect, SMC falls back in a kernel worker before
 *         any process holds the socket: the server side's owner is the
 *         process that made its listener listen, when the part saw it do
 *         so (with DROPSCOPE_SMC_A_LAYOUT); else PID 0 and an empty COMM.
 *
 * DROPSCOPE_A_SMC_DEV (SMC_GET replies), one per RDMA device SMC-R moved
 *     data on since start or reset:
 *     DROPSCOPE_SMC_DEV_A_NAME: NLA_NUL_STRING, the device (as rdma link
 *         and smc:smc_tx_sendmsg's dev name it)
 *     DROPSCOPE_SMC_DEV_A_TX_BYTES, _TX_EVENTS, _RX_BYTES, _RX_EVENTS:
 *         NLA_U64, as DROPSCOPE_SMC_A_TX_BYTES and the others
 *
 * DROPSCOPE_A_REASON:
 *     DROPSCOPE_REASON_A_ID: NLA_U32
 *     DROPSCOPE_REASON_A_NAME: NLA_NUL_STRING
 *
 * DROPSCOPE_A_STATS (all NLA_U64 unless noted):
 *     DROPSCOPE_STATS_A_EVENTS: drops seen (sites plus overflow)
 *     DROPSCOPE_STATS_A_SITES: distinct sites known
 *     DROPSCOPE_STATS_A_OVERFLOW: drops that found no room in a full table
 *     DROPSCOPE_STATS_A_ROUNDS: alert rounds sent
 *     DROPSCOPE_STATS_A_ALERTS_SENT: alert messages sent
 *     DROPSCOPE_STATS_A_ALERTS_LOST: alert messages some listener missed
 *     DROPSCOPE_STATS_A_FOLDS: times the per-CPU counters were folded
 *     DROPSCOPE_STATS_A_ALLOC_FAILS: drops whose site the folder could not
 *         allocate; they stay in EVENTS but not in any site
 *     DROPSCOPE_STATS_A_SHOWN: drops not masked
 *     DROPSCOPE_STATS_A_MASKED: drops masked by rules;
 *         EVENTS = SHOWN + MASKED + OVERFLOW + ALLOC_FAILS
 *     DROPSCOPE_STATS_A_TOP_SUPPRESSED: site alerts left out by the top cap
 *     DROPSCOPE_STATS_A_RATELIMITED: alert messages held back by the cap
 *     DROPSCOPE_STATS_A_SESSIONS_OPENED, _CLOSED, _LIVE: TCP sessions
 *     DROPSCOPE_STATS_A_SESSIONS_OVERFLOW: sessions born while the table
 *         (module parameter sessions=) was full: never tracked
 *     DROPSCOPE_STATS_A_SESSIONS_UNREAD: closes overwritten in the ring
 *         before anyone read them
 *     DROPSCOPE_STATS_A_SESSIONS_STALE: entries whose socket turned out
 *         not to be theirs any more (a close that was not seen)
 *     DROPSCOPE_STATS_A_SESSIONS_FOUND: of the sessions opened, those
 *         open before start, found by it (DROPSCOPE_SESSION_A_FOUND)
 *     DROPSCOPE_STATS_A_SESS_EVENTS: session events recorded;
 *         DROPSCOPE_STATS_A_SESS_EVENTS_LOST: of them, overwritten in the
 *         ring before an alert round carried them
 *     DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED: drops of tracked sessions
 *         that the mask rules in effect masked (the verdict the drop's site
 *         gets); they are in no session's DROPSCOPE_SESSION_A_DROPS
 *     DROPSCOPE_STATS_A_STACKS: distinct stacks folded (DROPSCOPE_CMD_
 *         STACKS_GET)
 *     DROPSCOPE_STATS_A_STACKS_LOST: drops whose stack found no room, even
 *         without frames, or came in an NMI: in no stack's count
 *     DROPSCOPE_STATS_A_STACKS_SITELESS: drops whose stack did not reach
 *         the site (counted in a NO_ROOM, SITELESS entry)
 *     DROPSCOPE_STATS_A_STACKS_WALKED: drops whose stack the kernel's
 *         unwinder walked; every other drop whose stack was taken replayed
 *         a walk learnt before (Documentation/stacks.md)
 *     DROPSCOPE_STATS_A_TRAP_EVENTS: trapped packets counted (hw), of
 *         them DROPSCOPE_STATS_A_TRAPS_OVERFLOW in no trap (table full);
 *         DROPSCOPE_STATS_A_TRAPS: distinct traps
 *     DROPSCOPE_STATS_A_QDISC_EVENTS: qdisc drops counted (qdisc), of
 *         them DROPSCOPE_STATS_A_QDISCS_OVERFLOW in no key (table full);
 *         DROPSCOPE_STATS_A_QDISCS: distinct keys
 *     DROPSCOPE_STATS_A_DEVCTRS: device counters that moved (dev);
 *         DROPSCOPE_STATS_A_DEVCTRS_LOST: readings of the devices not
 *         kept for want of memory
 *     DROPSCOPE_STATS_A_EPOCH: the totals' epoch: drawn at random when the
 *         module loads and advanced each time the totals start again from
 *         zero (DROPSCOPE_CMD_START, DROPSCOPE_CMD_RESET). A reader that
 *         sees it change knows that every total it read before is gone,
 *         even if the new totals have already grown past the old ones
 *
 * Enums only grow at the end.
 */
#ifndef _UAPI_LINUX_DROPSCOPE_H
#define _UAPI_LINUX_DROPSCOPE_H

#include <linux/types.h>

#define DROPSCOPE_GENL_NAME		"dropscope"
#define DROPSCOPE_GENL_VERSION		1
#define DROPSCOPE_MCGRP_ALERTS		"alerts"

#define DROPSCOPE_INTERVAL_MIN_MS	10
#define DROPSCOPE_INTERVAL_MAX_MS	60000
#define DROPSCOPE_INTERVAL_DEF_MS	1000

enum dropscope_cmd {
	DROPSCOPE_CMD_UNSPEC,
	DROPSCOPE_CMD_START,
	DROPSCOPE_CMD_STOP,
	DROPSCOPE_CMD_CONFIG_GET,
	DROPSCOPE_CMD_CONFIG_SET,
	DROPSCOPE_CMD_SITES_GET,
	DROPSCOPE_CMD_REASONS_GET,
	DROPSCOPE_CMD_STATS_GET,
	DROPSCOPE_CMD_RESET,
	DROPSCOPE_CMD_ALERT,
	DROPSCOPE_CMD_RULE_ADD,
	DROPSCOPE_CMD_RULE_DEL,
	DROPSCOPE_CMD_RULE_GET,
	DROPSCOPE_CMD_RULE_CLEAR,
	DROPSCOPE_CMD_SESSIONS_GET,
	DROPSCOPE_CMD_CLOSED_GET,
	DROPSCOPE_CMD_SMC_GET,
	DROPSCOPE_CMD_CAPTURE_START,
	DROPSCOPE_CMD_CAPTURE_STOP,
	DROPSCOPE_CMD_CAPTURE,
	DROPSCOPE_CMD_STACKS_SET,
	DROPSCOPE_CMD_STACKS_CLEAR,
	DROPSCOPE_CMD_STACKS_GET,
	DROPSCOPE_CMD_TRAPS_GET,
	DROPSCOPE_CMD_DEVCTRS_GET,
	DROPSCOPE_CMD_QDISCS_GET,
	DROPSCOPE_CMD_RUN_START,
	DROPSCOPE_CMD_RUN_STOP,
	DROPSCOPE_CMD_RUN_NETNS_GET,
	__DROPSCOPE_CMD_MAX
};

#define DROPSCOPE_CMD_MAX (__DROPSCOPE_CMD_MAX - 1)

enum dropscope_attr {
	DROPSCOPE_A_UNSPEC,
	DROPSCOPE_A_PAD,
	DROPSCOPE_A_RUNNING,
	DROPSCOPE_A_INTERVAL_MS,
	DROPSCOPE_A_CAPACITY,
	DROPSCOPE_A_SITE,
	DROPSCOPE_A_REASON,
	DROPSCOPE_A_STATS,
	DROPSCOPE_A_ROUND,
	DROPSCOPE_A_ROUND_END,
	DROPSCOPE_A_OVERFLOW_DELTA,
	DROPSCOPE_A_THRESHOLD,
	DROPSCOPE_A_TOP,
	DROPSCOPE_A_RATELIMIT,
	DROPSCOPE_A_RULE,
	DROPSCOPE_A_RULES,
	DROPSCOPE_A_PARTS,
	DROPSCOPE_A_SESSION,
	DROPSCOPE_A_SESSIONS_CAPACITY,
	DROPSCOPE_A_CLOSED_CAPACITY,
	DROPSCOPE_A_SMC,
	DROPSCOPE_A_SMC_FALLBACK,
	DROPSCOPE_A_SMC_LINK_DOWNS_DELTA,
	DROPSCOPE_A_SMC_OWNER,
	DROPSCOPE_A_SMC_DEV,
	DROPSCOPE_A_CAPTURE,
	DROPSCOPE_A_PACKET,
	DROPSCOPE_A_RUN_CGROUP,
	DROPSCOPE_A_STACKS,
	DROPSCOPE_A_STACKS_CAPACITY,
	DROPSCOPE_A_STACK,
	DROPSCOPE_A_SESS_EVENTS,
	DROPSCOPE_A_SESS_EVENT,
	DROPSCOPE_A_SESS_EVENTS_LOST_DELTA,
	DROPSCOPE_A_TRAP,
	DROPSCOPE_A_DEVCTR,
	DROPSCOPE_A_TRAPS_CAPACITY,
	DROPSCOPE_A_QDISC,
	DROPSCOPE_A_QDISCS_CAPACITY,
	DROPSCOPE_A_PARTS_ABSENT,
	DROPSCOPE_A_RUN,
	DROPSCOPE_A_RUNS,
	DROPSCOPE_A_NETNS_FD,
	DROPSCOPE_A_NETNS,
	__DROPSCOPE_A_MAX
};

#define DROPSCOPE_A_MAX (__DROPSCOPE_A_MAX - 1)

enum dropscope_site_attr {
	DROPSCOPE_SITE_A_UNSPEC,
	DROPSCOPE_SITE_A_PAD,
	DROPSCOPE_SITE_A_LOCATION,
	DROPSCOPE_SITE_A_SYMBOL,
	DROPSCOPE_SITE_A_REASON,
	DROPSCOPE_SITE_A_REASON_NAME,
	DROPSCOPE_SITE_A_TOTAL,
	DROPSCOPE_SITE_A_DELTA,
	DROPSCOPE_SITE_A_MASKED,
	DROPSCOPE_SITE_A_IFINDEX,
	DROPSCOPE_SITE_A_NETNS,
	DROPSCOPE_SITE_A_L3,
	DROPSCOPE_SITE_A_L4,
	DROPSCOPE_SITE_A_RUN,
	__DROPSCOPE_SITE_A_MAX
};

#define DROPSCOPE_SITE_A_MAX (__DROPSCOPE_SITE_A_MAX - 1)

enum dropscope_reason_attr {
	DROPSCOPE_REASON_A_UNSPEC,
	DROPSCOPE_REASON_A_ID,
	DROPSCOPE_REASON_A_NAME,
	__DROPSCOPE_REASON_A_MAX
};

#define DROPSCOPE_REASON_A_MAX (__DROPSCOPE_REASON_A_MAX - 1)

enum dropscope_stats_attr {
	DROPSCOPE_STATS_A_UNSPEC,
	DROPSCOPE_STATS_A_PAD,
	DROPSCOPE_STATS_A_EVENTS,
	DROPSCOPE_STATS_A_SITES,
	DROPSCOPE_STATS_A_OVERFLOW,
	DROPSCOPE_STATS_A_ROUNDS,
	DROPSCOPE_STATS_A_ALERTS_SENT,
	DROPSCOPE_STATS_A_ALERTS_LOST,
	DROPSCOPE_STATS_A_FOLDS,
	DROPSCOPE_STATS_A_ALLOC_FAILS,
	DROPSCOPE_STATS_A_SHOWN,
	DROPSCOPE_STATS_A_MASKED,
	DROPSCOPE_STATS_A_TOP_SUPPRESSED,
	DROPSCOPE_STATS_A_RATELIMITED,
	DROPSCOPE_STATS_A_SESSIONS_OPENED,
	DROPSCOPE_STATS_A_SESSIONS_CLOSED,
	DROPSCOPE_STATS_A_SESSIONS_LIVE,
	DROPSCOPE_STATS_A_SESSIONS_OVERFLOW,
	DROPSCOPE_STATS_A_SESSIONS_UNREAD,
	DROPSCOPE_STATS_A_SESSIONS_STALE,
	DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED,
	DROPSCOPE_STATS_A_EPOCH,
	DROPSCOPE_STATS_A_STACKS,
	DROPSCOPE_STATS_A_STACKS_LOST,
	DROPSCOPE_STATS_A_STACKS_SITELESS,
	DROPSCOPE_STATS_A_SESSIONS_FOUND,
	DROPSCOPE_STATS_A_SESS_EVENTS,
	DROPSCOPE_STATS_A_SESS_EVENTS_LOST,
	DROPSCOPE_STATS_A_TRAP_EVENTS,
	DROPSCOPE_STATS_A_TRAPS,
	DROPSCOPE_STATS_A_TRAPS_OVERFLOW,
	DROPSCOPE_STATS_A_DEVCTRS,
	DROPSCOPE_STATS_A_DEVCTRS_LOST,
	DROPSCOPE_STATS_A_STACKS_WALKED,
	DROPSCOPE_STATS_A_QDISC_EVENTS,
	DROPSCOPE_STATS_A_QDISCS,
	DROPSCOPE_STATS_A_QDISCS_OVERFLOW,
	__DROPSCOPE_STATS_A_MAX
};

#define DROPSCOPE_STATS_A_MAX (__DROPSCOPE_STATS_A_MAX - 1)

enum dropscope_rule_mode {
	DROPSCOPE_RULE_MASK,		/* hide what matches */
	DROPSCOPE_RULE_ONLY,		/* show only what matches some ONLY rule */
};

enum dropscope_rule_attr {
	DROPSCOPE_RULE_A_UNSPEC,
	DROPSCOPE_RULE_A_PAD,
	DROPSCOPE_RULE_A_ID,
	DROPSCOPE_RULE_A_MODE,
	DROPSCOPE_RULE_A_LOC_START,
	DROPSCOPE_RULE_A_LOC_END,
	DROPSCOPE_RULE_A_REASON,
	DROPSCOPE_RULE_A_IFINDEX,
	DROPSCOPE_RULE_A_NETNS,
	DROPSCOPE_RULE_A_L3,
	DROPSCOPE_RULE_A_L4,
	DROPSCOPE_RULE_A_HITS,
	DROPSCOPE_RULE_A_SMC_REASON,
	DROPSCOPE_RULE_A_LAYER,
	DROPSCOPE_RULE_A_TRAP,
	DROPSCOPE_RULE_A_TRAP_GROUP,
	DROPSCOPE_RULE_A_DEV_COUNTER,
	DROPSCOPE_RULE_A_QDISC_KIND,
	__DROPSCOPE_RULE_A_MAX
};

#define DROPSCOPE_RULE_A_MAX (__DROPSCOPE_RULE_A_MAX - 1)

#define DROPSCOPE_MAX_RULES		1024

/* The parts of DROPSCOPE_A_PARTS: bits, each a source of events. */
enum dropscope_part {
	DROPSCOPE_PART_DROPS = 1 << 0,	/* skb:kfree_skb: sites */
	DROPSCOPE_PART_TCP = 1 << 1,	/* TCP sessions */
	DROPSCOPE_PART_SMC = 1 << 2,	/* the smc.ko tracepoints */
	DROPSCOPE_PART_HW = 1 << 3,	/* devlink:devlink_trap_report: traps */
	DROPSCOPE_PART_DEV = 1 << 4,	/* the devices' drop counters */
	DROPSCOPE_PART_QDISC = 1 << 5,	/* qdisc:qdisc_drop: qdisc drops */
};

#define DROPSCOPE_PARTS_ALL	(DROPSCOPE_PART_DROPS | DROPSCOPE_PART_TCP | \
				 DROPSCOPE_PART_SMC | DROPSCOPE_PART_HW | \
				 DROPSCOPE_PART_DEV | DROPSCOPE_PART_QDISC)

enum dropscope_session_attr {
	DROPSCOPE_SESSION_A_UNSPEC,
	DROPSCOPE_SESSION_A_PAD,
	DROPSCOPE_SESSION_A_COOKIE,
	DROPSCOPE_SESSION_A_FAMILY,
	DROPSCOPE_SESSION_A_SADDR,
	DROPSCOPE_SESSION_A_DADDR,
	DROPSCOPE_SESSION_A_SPORT,
	DROPSCOPE_SESSION_A_DPORT,
	DROPSCOPE_SESSION_A_STATE,
	DROPSCOPE_SESSION_A_PID,
	DROPSCOPE_SESSION_A_COMM,
	DROPSCOPE_SESSION_A_START_NS,
	DROPSCOPE_SESSION_A_DURATION_NS,
	DROPSCOPE_SESSION_A_BYTES_ACKED,
	DROPSCOPE_SESSION_A_BYTES_RECEIVED,
	DROPSCOPE_SESSION_A_TOTAL_RETRANS,
	DROPSCOPE_SESSION_A_RESETS_SENT,
	DROPSCOPE_SESSION_A_RESETS_RECEIVED,
	DROPSCOPE_SESSION_A_DROPS,
	DROPSCOPE_SESSION_A_CLOSED,
	DROPSCOPE_SESSION_A_SEQ,
	DROPSCOPE_SESSION_A_SMC_MODE,
	DROPSCOPE_SESSION_A_SMC_REASON,
	DROPSCOPE_SESSION_A_RUN,
	DROPSCOPE_SESSION_A_TCP,
	DROPSCOPE_SESSION_A_FOUND,
	__DROPSCOPE_SESSION_A_MAX
};

#define DROPSCOPE_SESSION_A_MAX (__DROPSCOPE_SESSION_A_MAX - 1)

enum dropscope_smc_attr {
	DROPSCOPE_SMC_A_UNSPEC,
	DROPSCOPE_SMC_A_PAD,
	DROPSCOPE_SMC_A_HOOKED,
	DROPSCOPE_SMC_A_FALLBACKS,
	DROPSCOPE_SMC_A_TX_BYTES,
	DROPSCOPE_SMC_A_TX_EVENTS,
	DROPSCOPE_SMC_A_RX_BYTES,
	DROPSCOPE_SMC_A_RX_EVENTS,
	DROPSCOPE_SMC_A_LINK_DOWNS,
	DROPSCOPE_SMC_A_OVERFLOW,
	DROPSCOPE_SMC_A_OWNERS_OVERFLOW,
	DROPSCOPE_SMC_A_FALLBACKS_MASKED,
	DROPSCOPE_SMC_A_LAYOUT,
	DROPSCOPE_SMC_A_SMCR_TX_BYTES,
	DROPSCOPE_SMC_A_SMCR_TX_EVENTS,
	DROPSCOPE_SMC_A_SMCR_RX_BYTES,
	DROPSCOPE_SMC_A_SMCR_RX_EVENTS,
	DROPSCOPE_SMC_A_SMCD_TX_BYTES,
	DROPSCOPE_SMC_A_SMCD_TX_EVENTS,
	DROPSCOPE_SMC_A_SMCD_RX_BYTES,
	DROPSCOPE_SMC_A_SMCD_RX_EVENTS,
	DROPSCOPE_SMC_A_DEVS_OVERFLOW,
	__DROPSCOPE_SMC_A_MAX
};

#define DROPSCOPE_SMC_A_MAX (__DROPSCOPE_SMC_A_MAX - 1)

/* The side of an SMC connection that fell back. */
enum dropscope_smc_side {
	DROPSCOPE_SMC_CLIENT,		/* the connecting socket */
	DROPSCOPE_SMC_SERVER,		/* a connection to a listener */
};

enum dropscope_smc_fb_attr {
	DROPSCOPE_SMC_FB_A_UNSPEC,
	DROPSCOPE_SMC_FB_A_PAD,
	DROPSCOPE_SMC_FB_A_CODE,
	DROPSCOPE_SMC_FB_A_SIDE,
	DROPSCOPE_SMC_FB_A_TOTAL,
	DROPSCOPE_SMC_FB_A_DELTA,
	DROPSCOPE_SMC_FB_A_PID,
	DROPSCOPE_SMC_FB_A_COMM,
	DROPSCOPE_SMC_FB_A_MASKED,
	__DROPSCOPE_SMC_FB_A_MAX
};

#define DROPSCOPE_SMC_FB_A_MAX (__DROPSCOPE_SMC_FB_A_MAX - 1)

/* Session events a socket wants (DROPSCOPE_A_SESS_EVENTS), and their kinds */
enum dropscope_sess_events {
	DROPSCOPE_SESS_EVENTS_STATES = 1 << 0,	/* state changes */
	DROPSCOPE_SESS_EVENTS_RETRANS = 1 << 1,	/* retransmits and TLPs */
};

#define DROPSCOPE_SESS_EVENTS_ALL (DROPSCOPE_SESS_EVENTS_STATES | DROPSCOPE_SESS_EVENTS_RETRANS)
#define DROPSCOPE_MAX_EVENT_SOCKS	16
#define DROPSCOPE_SESS_EVENTS_RING	8192

enum dropscope_sess_event_kind {
	DROPSCOPE_SESS_EVENT_STATE = 1,	/* a state change */
	DROPSCOPE_SESS_EVENT_RETRANS,	/* tcp:tcp_retransmit_skb */
	DROPSCOPE_SESS_EVENT_TLP,	/* tcp_send_loss_probe(), a TLP's turn */
};

/*
 * DROPSCOPE_A_SESS_EVENT: KIND (NLA_U8), TIME_NS (NLA_U64, CLOCK_MONOTONIC),
 * COOKIE (NLA_U64, the session's, 0 if untracked), PID and COMM (the
 * session's owner, else the process in whose context it happened, else 0),
 * FAMILY, SADDR, DADDR, SPORT, DPORT as in a session at that moment;
 * OLDSTATE and NEWSTATE (NLA_U8; a retransmit or a TLP: the state then, in
 * both); SEGS (NLA_U32, a retransmit's segments: they add up to the
 * socket's total_retrans).
 */
enum dropscope_sess_event_attr {
	DROPSCOPE_EVENT_A_UNSPEC,
	DROPSCOPE_EVENT_A_PAD,
	DROPSCOPE_EVENT_A_KIND,
	DROPSCOPE_EVENT_A_TIME_NS,
	DROPSCOPE_EVENT_A_COOKIE,
	DROPSCOPE_EVENT_A_PID,
	DROPSCOPE_EVENT_A_COMM,
	DROPSCOPE_EVENT_A_FAMILY,
	DROPSCOPE_EVENT_A_SADDR,
	DROPSCOPE_EVENT_A_DADDR,
	DROPSCOPE_EVENT_A_SPORT,
	DROPSCOPE_EVENT_A_DPORT,
	DROPSCOPE_EVENT_A_OLDSTATE,
	DROPSCOPE_EVENT_A_NEWSTATE,
	DROPSCOPE_EVENT_A_SEGS,
	__DROPSCOPE_EVENT_A_MAX
};

#define DROPSCOPE_EVENT_A_MAX (__DROPSCOPE_EVENT_A_MAX - 1)

/* The mode of the TCP session under an SMC socket. */
enum dropscope_smc_mode {
	DROPSCOPE_SMC_MODE_NONE,
	DROPSCOPE_SMC_MODE_SMCR,	/* SMC-R: over RDMA */
	DROPSCOPE_SMC_MODE_SMCD,	/* SMC-D: over ISM or loopback */
	DROPSCOPE_SMC_MODE_FALLBACK,	/* fell back to TCP */
};

enum dropscope_smc_dev_attr {
	DROPSCOPE_SMC_DEV_A_UNSPEC,
	DROPSCOPE_SMC_DEV_A_PAD,
	DROPSCOPE_SMC_DEV_A_NAME,
	DROPSCOPE_SMC_DEV_A_TX_BYTES,
	DROPSCOPE_SMC_DEV_A_TX_EVENTS,
	DROPSCOPE_SMC_DEV_A_RX_BYTES,
	DROPSCOPE_SMC_DEV_A_RX_EVENTS,
	__DROPSCOPE_SMC_DEV_A_MAX
};

#define DROPSCOPE_SMC_DEV_A_MAX (__DROPSCOPE_SMC_DEV_A_MAX - 1)

/* Captures at once: one for each run's evidence, and four more. */
#define DROPSCOPE_MAX_CAPTURES	20
#define DROPSCOPE_MAX_RUNS	16
/* The drop keys (site, reason) a per-key capture tells apart. */
#define DROPSCOPE_CAPTURE_KEYS	256

enum dropscope_capture_attr {
	DROPSCOPE_CAPTURE_A_UNSPEC,
	DROPSCOPE_CAPTURE_A_PAD,
	DROPSCOPE_CAPTURE_A_ID,
	DROPSCOPE_CAPTURE_A_FILTER,
	DROPSCOPE_CAPTURE_A_SNAPLEN,
	DROPSCOPE_CAPTURE_A_ALL,
	DROPSCOPE_CAPTURE_A_MATCHED,
	DROPSCOPE_CAPTURE_A_CAPTURED,
	DROPSCOPE_CAPTURE_A_LOST_BUFFER,
	DROPSCOPE_CAPTURE_A_LOST_SOCKET,
	DROPSCOPE_CAPTURE_A_NO_NETWORK,
	DROPSCOPE_CAPTURE_A_END,
	DROPSCOPE_CAPTURE_A_RUN,
	DROPSCOPE_CAPTURE_A_PER_KEY,
	DROPSCOPE_CAPTURE_A_LOST_KEYS,
	__DROPSCOPE_CAPTURE_A_MAX
};

#define DROPSCOPE_CAPTURE_A_MAX (__DROPSCOPE_CAPTURE_A_MAX - 1)

enum dropscope_packet_attr {
	DROPSCOPE_PACKET_A_UNSPEC,
	DROPSCOPE_PACKET_A_PAD,
	DROPSCOPE_PACKET_A_TSTAMP,
	DROPSCOPE_PACKET_A_LOCATION,
	DROPSCOPE_PACKET_A_REASON,
	DROPSCOPE_PACKET_A_IFINDEX,
	DROPSCOPE_PACKET_A_NETNS,
	DROPSCOPE_PACKET_A_PROTOCOL,
	DROPSCOPE_PACKET_A_LEN,
	DROPSCOPE_PACKET_A_DATA,
	DROPSCOPE_PACKET_A_STACK,
	DROPSCOPE_PACKET_A_RUN,
	DROPSCOPE_PACKET_A_FRAMES,
	DROPSCOPE_PACKET_A_SADDR,
	DROPSCOPE_PACKET_A_DADDR,
	DROPSCOPE_PACKET_A_SPORT,
	DROPSCOPE_PACKET_A_DPORT,
	DROPSCOPE_PACKET_A_PID,
	DROPSCOPE_PACKET_A_COMM,
	__DROPSCOPE_PACKET_A_MAX
};

#define DROPSCOPE_PACKET_A_MAX (__DROPSCOPE_PACKET_A_MAX - 1)

/* DROPSCOPE_SESSION_A_TCP: a live session's transport state */
struct dropscope_tcp_state {
	__u32 rtt_us;		/* srtt_us >> 3, as tcpi_rtt */
	__u32 rttvar_us;	/* mdev_us >> 2, as tcpi_rttvar */
	__u32 snd_cwnd;
	__u32 snd_ssthresh;	/* 0x7fffffff: not yet set */
	__u32 snd_wnd;
	__u32 rcv_wnd;
	__u32 unacked;		/* packets_out */
	__u32 lost;		/* lost_out */
	__u32 retrans;		/* retrans_out */
	__u32 pad;
	__u64 delivery_rate;	/* bytes a second, as tcpi_delivery_rate */
};

#define DROPSCOPE_STACK_DEPTH		32
#define DROPSCOPE_STACKS_NO_ROOM	64

enum dropscope_stack_attr {
	DROPSCOPE_STACK_A_UNSPEC,
	DROPSCOPE_STACK_A_PAD,
	DROPSCOPE_STACK_A_LOCATION,
	DROPSCOPE_STACK_A_REASON,
	DROPSCOPE_STACK_A_ID,
	DROPSCOPE_STACK_A_COUNT,
	DROPSCOPE_STACK_A_FRAME,
	DROPSCOPE_STACK_A_NO_ROOM,
	DROPSCOPE_STACK_A_SITELESS,
	DROPSCOPE_STACK_A_SYMBOL,
	DROPSCOPE_STACK_A_SITE,
	__DROPSCOPE_STACK_A_MAX
};

#define DROPSCOPE_STACK_A_MAX (__DROPSCOPE_STACK_A_MAX - 1)

/* The longest trap or trap group name a rule takes (the NUL not counted). */
#define DROPSCOPE_TRAP_NAME_MAX		39

/* Where a drop is seen (DROPSCOPE_RULE_A_LAYER). */
enum dropscope_layer {
	DROPSCOPE_LAYER_KERNEL,		/* skb:kfree_skb: sites */
	DROPSCOPE_LAYER_HW,		/* devlink traps */
	DROPSCOPE_LAYER_DEV,		/* the devices' drop counters */
	DROPSCOPE_LAYER_QDISC,		/* qdisc:qdisc_drop */
};

/* The type of a trap (DROPSCOPE_TRAP_A_TYPE), as devlink's own enum. */
enum dropscope_trap_type {
	DROPSCOPE_TRAP_DROP,		/* the device dropped the packet */
	DROPSCOPE_TRAP_EXCEPTION,	/* it could not forward it */
};

enum dropscope_trap_attr {
	DROPSCOPE_TRAP_A_UNSPEC,
	DROPSCOPE_TRAP_A_PAD,
	DROPSCOPE_TRAP_A_DEVICE,
	DROPSCOPE_TRAP_A_NAME,
	DROPSCOPE_TRAP_A_GROUP,
	DROPSCOPE_TRAP_A_TYPE,
	DROPSCOPE_TRAP_A_IFINDEX,
	DROPSCOPE_TRAP_A_DEV,
	DROPSCOPE_TRAP_A_NETNS,
	DROPSCOPE_TRAP_A_TOTAL,
	DROPSCOPE_TRAP_A_DELTA,
	DROPSCOPE_TRAP_A_MASKED,
	__DROPSCOPE_TRAP_A_MAX
};

#define DROPSCOPE_TRAP_A_MAX (__DROPSCOPE_TRAP_A_MAX - 1)

/*
 * The drop counters of a device's statistics (struct rtnl_link_stats64)
 * that DROPSCOPE_PART_DEV follows: DROPSCOPE_DEVCTR_A_COUNTER.
 */
enum dropscope_dev_counter {
	DROPSCOPE_DEV_RX_DROPPED,
	DROPSCOPE_DEV_TX_DROPPED,
	DROPSCOPE_DEV_RX_NOHANDLER,
	DROPSCOPE_DEV_RX_OTHERHOST_DROPPED,
	DROPSCOPE_DEV_RX_MISSED_ERRORS,
	DROPSCOPE_DEV_RX_FIFO_ERRORS,
	DROPSCOPE_DEV_RX_OVER_ERRORS,
	DROPSCOPE_DEV_RX_CRC_ERRORS,
	DROPSCOPE_DEV_RX_FRAME_ERRORS,
	DROPSCOPE_DEV_RX_LENGTH_ERRORS,
	DROPSCOPE_DEV_TX_FIFO_ERRORS,
	DROPSCOPE_DEV_TX_ABORTED_ERRORS,
	DROPSCOPE_DEV_TX_CARRIER_ERRORS,
	DROPSCOPE_DEV_TX_HEARTBEAT_ERRORS,
	DROPSCOPE_DEV_TX_WINDOW_ERRORS,
	DROPSCOPE_DEV_COUNTERS
};

enum dropscope_devctr_attr {
	DROPSCOPE_DEVCTR_A_UNSPEC,
	DROPSCOPE_DEVCTR_A_PAD,
	DROPSCOPE_DEVCTR_A_IFINDEX,
	DROPSCOPE_DEVCTR_A_NETNS,
	DROPSCOPE_DEVCTR_A_DEV,
	DROPSCOPE_DEVCTR_A_COUNTER,
	DROPSCOPE_DEVCTR_A_TOTAL,
	DROPSCOPE_DEVCTR_A_DELTA,
	DROPSCOPE_DEVCTR_A_MASKED,
	__DROPSCOPE_DEVCTR_A_MAX
};

#define DROPSCOPE_DEVCTR_A_MAX (__DROPSCOPE_DEVCTR_A_MAX - 1)

/* The longest qdisc kind (IFNAMSIZ less its NUL), as tc names it. */
#define DROPSCOPE_QDISC_KIND_MAX	15

/*
 * DROPSCOPE_A_QDISC: the drops of one qdisc with one reason.
 *     DROPSCOPE_QDISC_A_IFINDEX, _NETNS (netns inode), _DEV: the device
 *         (absent: none); _KIND: the qdisc's id ("fq"); _HANDLE: its
 *         handle (major:minor as tc's 8000:0 is 0x80000000); _PARENT:
 *         the handle of its parent (TC_H_ROOT 0xffffffff for a root)
 *     DROPSCOPE_QDISC_A_REASON: NLA_U32, the kernel's enum
 *         qdisc_drop_reason value; _REASON_NAME: its name without the
 *         QDISC_DROP_ prefix ("FLOW_LIMIT"), absent if the module was built
 *         without a name for it
 *     DROPSCOPE_QDISC_A_TOTAL, _DELTA (alerts), _MASKED (dumps): as a site's
 */
enum dropscope_qdisc_attr {
	DROPSCOPE_QDISC_A_UNSPEC,
	DROPSCOPE_QDISC_A_PAD,
	DROPSCOPE_QDISC_A_IFINDEX,
	DROPSCOPE_QDISC_A_NETNS,
	DROPSCOPE_QDISC_A_DEV,
	DROPSCOPE_QDISC_A_KIND,
	DROPSCOPE_QDISC_A_HANDLE,
	DROPSCOPE_QDISC_A_PARENT,
	DROPSCOPE_QDISC_A_REASON,
	DROPSCOPE_QDISC_A_REASON_NAME,
	DROPSCOPE_QDISC_A_TOTAL,
	DROPSCOPE_QDISC_A_DELTA,
	DROPSCOPE_QDISC_A_MASKED,
	__DROPSCOPE_QDISC_A_MAX
};

#define DROPSCOPE_QDISC_A_MAX (__DROPSCOPE_QDISC_A_MAX - 1)

#endif /* _UAPI_LINUX_DROPSCOPE_H */
