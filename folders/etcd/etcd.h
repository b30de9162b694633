/* SPDX-License-Identifier: MIT */
/* etcd raft's folder (etcd.c), which its live side folds with. */
#ifndef FOLDERS_ETCD_H
#define FOLDERS_ETCD_H

#include "../../capture/system.h"

extern const struct folder folder_etcd;

#endif
