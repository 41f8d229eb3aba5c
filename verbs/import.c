/* Front end of sharing a context within the process: each context's
 * command file, ibv_import_device, and importing and unimporting PDs, MRs
 * and DMs by handle, with the errnos rdma-core and the kernel give
 * (emu/objects/import.c keeps the families and handles). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "emu/device/device.h"
#include "emu/objects/dm.h"
#include "emu/objects/import.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/pd.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/import.h"
#include "verbs/ops.h"

/*
 * A context's command file is a memfd of its own: a file no other context
 * has, so a dup of it (passed to ibv_import_device) names its family by
 * st_dev/st_ino, as a dup of /dev/infiniband/uverbsN names the uverbs
 * file its ucontext hangs off. It holds who made it, so a command file
 * of another process is told from a stranger's.
 */
struct cmd_file {
	char magic[16];
	pid_t pid;
};

static const char cmd_magic[16] = "emuverbs-cmd-fd";

int emu_verbs_cmd_fd(struct emu_context *ctx)
{
	struct cmd_file h = { .pid = getpid() };
	struct stat st;
	int fd;

	memcpy(h.magic, cmd_magic, sizeof(h.magic));
	fd = memfd_create("emuverbs-uverbs", MFD_CLOEXEC);
	if (fd >= 0 && (pwrite(fd, &h, sizeof(h), 0) != sizeof(h) ||
			fstat(fd, &st) ||
			emu_import_family_new(ctx, st.st_dev, st.st_ino))) {
		close(fd);
		fd = -1;
	}
	/* Without memfds (or memory) the context cannot be imported, but
	 * programs still get a real descriptor to dup and poll. */
	if (fd < 0)
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	return fd;
}

/* ---- ibv_import_device -------------------------------------------------- */

/*
 * rdma-core's ibv_import_device: an fd it cannot fstat, or that is no
 * character device, is EINVAL; a character device of no RDMA device is
 * ENODEV. Ours: the command file of a live context of this process is
 * imported; one of another process (its device lives there, out of
 * reach) is EOPNOTSUPP, what rdma-core gives a device without import;
 * a command file whose contexts are all closed is ENODEV.
 */
struct ibv_context *ibv_import_device(int cmd_fd)
{
	struct emu_context *origin, *ctx;
	struct cmd_file h;
	struct stat st;
	int rc;

	if (fstat(cmd_fd, &st))
		return verbs_null(emu_refuse(EINVAL, "ibv_import_device: fd %d "
					     "cannot be stat()ed", cmd_fd));
	if (pread(cmd_fd, &h, sizeof(h), 0) != sizeof(h) ||
	    memcmp(h.magic, cmd_magic, sizeof(h.magic)))
		return verbs_null(emu_refuse(S_ISCHR(st.st_mode) ? ENODEV :
					     EINVAL, "ibv_import_device: fd "
					     "%d is no emuverbs context's "
					     "command file", cmd_fd));
	if (h.pid != getpid())
		return verbs_null(emu_refuse(EOPNOTSUPP, "ibv_import_device: "
					     "the context is process %d's: its "
					     "device lives there", (int)h.pid));
	rc = emu_import_family_join(NULL, st.st_dev, st.st_ino, &origin);
	if (rc)
		return verbs_null(emu_refuse(rc, "ibv_import_device: every "
					     "context of that command file is "
					     "closed"));
	ctx = emu_context_open(origin->dev);
	if (!ctx)
		return NULL;
	emu_verbs_init_context(ctx);
	/* The family again: its contexts may have closed meanwhile. */
	rc = emu_import_family_join(ctx, st.st_dev, st.st_ino, &origin);
	if (rc) {
		emu_context_close(ctx);
		return verbs_null(emu_refuse(rc, "ibv_import_device: every "
					     "context of that command file is "
					     "closed"));
	}
	/* As rdma-core: the fd given is the new context's, closed with it. */
	ctx->vctx.context.cmd_fd = cmd_fd;
	return &ctx->vctx.context;
}

/* ---- PDs ---------------------------------------------------------------- */

/* mlx5_import_pd: the kernel finds the PD by handle in the context's file,
 * ENOENT when it has none. */
struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	struct emu_pd *real, *pd;

	if (!context)
		return verbs_null(emu_refuse(EINVAL, "ibv_import_pd: context "
					     "is NULL"));
	if (verbs_ctx_live(context, "ibv_import_pd"))
		return verbs_null(EIO);
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return verbs_null(ENOMEM);
	real = emu_import_find(emu_ctx(context), EMU_IMPORT_PD, pd_handle,
			       offsetof(struct emu_pd, users));
	if (!real) {
		free(pd);
		return verbs_null(emu_refuse(ENOENT, "ibv_import_pd: no PD "
					     "with handle %u in the context's "
					     "command file", pd_handle));
	}
	/* Found by its address as the PD it stands for (emu/base/handle.h). */
	if (emu_handle_alias_add(emu_ctx(context), EMU_OBJ_PD, &pd->ibv)) {
		free(pd);
		return verbs_null(ENOMEM);
	}
	pd->ctx = emu_ctx(context);
	pd->kind = EMU_PD_IMPORTED;
	pd->real = real;
	atomic_init(&pd->users, 0);
	pd->ibv.context = context;
	pd->ibv.handle = pd_handle;
	return &pd->ibv;
}

/* Only an import is undone; anything else is left alone (mlx5 would free
 * a parent domain's or a PD's memory under its owner: EINVAL there). */
void ibv_unimport_pd(struct ibv_pd *pd)
{
	struct emu_pd *p;

	if (!pd || verbs_obj_live(pd, EMU_OBJ_PD, "ibv_unimport_pd", "pd"))
		return;
	p = emu_pd_self(pd);
	if (p->kind != EMU_PD_IMPORTED) {
		emu_log(EMU_LOG_VERBS, "ibv_unimport_pd: not an imported PD");
		return;
	}
	emu_pd_put(p->real);
	emu_handle_alias_remove(pd);
	free(p);
}

int emu_verbs_pd_created(struct emu_pd *pd)
{
	return emu_import_track(pd->ctx, EMU_IMPORT_PD, pd->ibv.handle, pd);
}

int emu_verbs_pd_free(struct emu_pd *pd)
{
	struct emu_pd *real = pd->real;
	int rc;

	if (pd->kind == EMU_PD_IMPORTED) {
		/* As the kernel: destroying through an import destroys the
		 * PD, here only when nothing else (no object, no other
		 * import) holds it; the import goes with it. */
		emu_pd_put(real);
		rc = emu_verbs_pd_free(real);
		if (rc) {
			emu_pd_get(real);
			return rc;
		}
		emu_handle_alias_remove(&pd->ibv);
		free(pd);
		return 0;
	}
	rc = emu_import_untrack_idle(EMU_IMPORT_PD, pd->ibv.handle, pd,
				     offsetof(struct emu_pd, users));
	if (rc)
		return emu_refuse(rc, "ibv_dealloc_pd: the PD is in use (%u "
				  "objects or imports)",
				  atomic_load(&pd->users));
	rc = emu_pd_free(pd);
	if (rc)
		emu_verbs_pd_created(pd);
	return rc;
}

/* ---- MRs ---------------------------------------------------------------- */

/*
 * ibv_cmd_query_mr: the kernel finds the region by handle in pd's context
 * file (ENOENT otherwise) and answers its keys and length; the import's
 * addr is NULL and its PD the one given.
 */
struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct emu_import_mr_info info;
	struct emu_mr *mr;
	int rc;

	if (!pd)
		return verbs_null(emu_refuse(EINVAL, "ibv_import_mr: pd is "
					     "NULL"));
	rc = verbs_obj_live(pd, EMU_OBJ_PD, "ibv_import_mr", "pd");
	if (rc)
		return verbs_null(rc);
	rc = emu_import_mr_info(emu_ctx(pd->context), mr_handle, &info);
	if (rc)
		return verbs_null(emu_refuse(rc, "ibv_import_mr: no MR with "
					     "handle %u in the context's "
					     "command file", mr_handle));
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return verbs_null(ENOMEM);
	/* Found by its address as an MR (emu/base/handle.h). */
	if (emu_handle_alias_add(emu_ctx(pd->context), EMU_OBJ_MR,
				 &mr->ibv)) {
		free(mr);
		return verbs_null(ENOMEM);
	}
	mr->imported = true;
	mr->ibv.context = pd->context;
	mr->ibv.pd = pd;
	mr->ibv.addr = NULL;
	mr->ibv.length = info.length;
	mr->ibv.lkey = info.lkey;
	mr->ibv.rkey = info.rkey;
	mr->ibv.handle = mr_handle;
	return &mr->ibv;
}

void ibv_unimport_mr(struct ibv_mr *mr)
{
	if (!mr || verbs_obj_live(mr, EMU_OBJ_MR, "ibv_unimport_mr", "mr"))
		return;
	if (!to_emu_mr(mr)->imported) {
		emu_log(EMU_LOG_VERBS, "ibv_unimport_mr: not an imported MR");
		return;
	}
	emu_handle_alias_remove(mr);
	free(to_emu_mr(mr));
}

int emu_verbs_imported_mr_dereg(struct ibv_mr *mr)
{
	struct emu_mr *real;
	int rc;

	/* As the kernel: the region itself goes, found by handle. */
	rc = emu_import_mr_find(emu_ctx(mr->context), mr->handle, &real);
	if (rc)
		return emu_refuse(rc, "ibv_dereg_mr: the imported MR's region "
				  "is gone");
	rc = emu_mr_deregister(real);
	if (!rc) {
		emu_handle_alias_remove(mr);
		free(to_emu_mr(mr));
	}
	return rc;
}

/* ---- DMs ---------------------------------------------------------------- */

struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	struct emu_dm *dm;
	int rc;

	if (!context)
		return verbs_null(emu_refuse(EINVAL, "ibv_import_dm: context "
					     "is NULL"));
	if (verbs_ctx_live(context, "ibv_import_dm"))
		return verbs_null(EIO);
	rc = emu_dm_import(emu_ctx(context), dm_handle, &dm);
	if (rc)
		return verbs_null(rc);
	emu_verbs_dm_set_copy(&dm->ibv);
	return &dm->ibv;
}

void ibv_unimport_dm(struct ibv_dm *dm)
{
	if (!dm || !to_emu_dm(dm)->real) {
		emu_log(EMU_LOG_VERBS, "ibv_unimport_dm: not an imported DM");
		return;
	}
	emu_dm_unimport(to_emu_dm(dm));
}
