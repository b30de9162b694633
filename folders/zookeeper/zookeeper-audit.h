/* SPDX-License-Identifier: MIT */
/* zookeeper's audit domain (zookeeper-audit.c), the one its folder names. */
#ifndef FOLDERS_ZOOKEEPER_AUDIT_H
#define FOLDERS_ZOOKEEPER_AUDIT_H

#include "../../capture/audit.h"

extern const struct audit_domain zk_audit;

#endif
