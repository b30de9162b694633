/* SPDX-License-Identifier: MIT */
/* The causal check of capture etcd --live's event stream (messages.c). */
#ifndef SCENARIOS_ETCD_MESSAGES_H
#define SCENARIOS_ETCD_MESSAGES_H

#include <cJSON.h>

/*
 * The causal check of a live run's event stream @path: every Receive*
 * event matches a Send* of the same message before it (a receive consumes
 * one send), sent by msg.from to msg.to.  Dies with EXIT_CHECK_FAILED at
 * the line of a receive that does not, naming the file @name (where a
 * failure keeps @path).  Adds {"sent", "received", "not_received"} to @m
 * as "messages".
 */
void etcd_check_messages(const char *path, const char *name, cJSON *m);

#endif
