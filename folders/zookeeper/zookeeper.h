/* SPDX-License-Identifier: MIT */
/* zookeeper's folder (zookeeper.c). */
#ifndef FOLDERS_ZOOKEEPER_H
#define FOLDERS_ZOOKEEPER_H

#include "../../capture/system.h"

extern const struct folder folder_zookeeper;

#endif
