/* The one place that knows every room of emu/: it subscribes them to the
 * device's observer interface in the order a device's life needs, the
 * objects' tables before the transport that finds QPs in them, and the
 * watchers last, so that they join after the transport runs and leave
 * before it stops (doc/architecture.md). */
#include <pthread.h>

#include "emu/emu.h"
#include "emu/objects/hooks.h"
#include "emu/observe/hooks.h"
#include "emu/transport/hooks.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void wire(void)
{
	emu_objects_use(&emu_transport_xport);
	emu_observe(&emu_objects_hooks);
	emu_observe(&emu_transport_hooks);
	emu_observe(&emu_observe_hooks);
}

void emu_init(void)
{
	pthread_once(&once, wire);
}
