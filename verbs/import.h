/* What the rest of the front end asks of verbs/import.c: each context's
 * command file, and the steps of PDs and MRs that imports take part in. */
#ifndef VERBS_IMPORT_H
#define VERBS_IMPORT_H

#include <infiniband/verbs.h>

struct emu_context;
struct emu_pd;

/* A new context's command file (a memfd naming its family; /dev/null when
 * memfds are not to be had): an fd, or -1 with errno. */
int emu_verbs_cmd_fd(struct emu_context *ctx);

/* A plain PD was made: importable by handle from now on. 0, or ENOMEM. */
int emu_verbs_pd_created(struct emu_pd *pd);

/* ibv_dealloc_pd of a plain or imported PD: 0, or EBUSY while objects or
 * imports hold it (through an import: anything besides that import). */
int emu_verbs_pd_free(struct emu_pd *pd);

/* ibv_dereg_mr of an imported MR: its region goes, then the import. 0,
 * ENOENT when the region is gone already, or emu_mr_deregister's EBUSY. */
int emu_verbs_imported_mr_dereg(struct ibv_mr *mr);

#endif
