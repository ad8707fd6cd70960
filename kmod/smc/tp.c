// SPDX-License-Identifier: GPL-2.0
/*
 * The SMC probes' prototypes against smc.ko's tracepoints. smc.c finds the
 * tracepoints by name, which checks nothing of their arguments, and their
 * header is private to net/smc: this file is built only against a kernel
 * tree that has it (kmod/compat.mk), where a prototype that changed fails
 * the build (-Werror=incompatible-pointer-types).
 */

#include "smc_tracepoint.h"

#include "dropscope.h"
#include "smc.h"

void ds_smc_check_probes(void)
{
	check_trace_callback_type_smc_switch_to_fallback(ds_smc_fallback_probe);
	check_trace_callback_type_smc_tx_sendmsg(ds_smc_tx_probe);
	check_trace_callback_type_smc_rx_recvmsg(ds_smc_rx_probe);
	check_trace_callback_type_smcr_link_down(ds_smc_link_down_probe);
}
