/* SPDX-License-Identifier: MIT */
/* The toolkit's version: `capture --version` and every manifest's "toolkit". */
#ifndef CAPTURE_VERSION_H
#define CAPTURE_VERSION_H

#define CAPTURE_VERSION "0.1.0"

#endif
