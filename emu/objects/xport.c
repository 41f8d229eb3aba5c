/* The table through which the objects reach the transport (xport.h). */
#include "emu/objects/xport.h"

const struct emu_xport_ops *emu_xport;

void emu_objects_use(const struct emu_xport_ops *ops)
{
	emu_xport = ops;
}
