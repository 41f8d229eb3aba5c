/* The subscriber list of the device's observer interface, and the two
 * events that can fail and must undo what went before. */
#include <errno.h>

#include "emu/device/observer.h"

const struct emu_observer *emu_observers[EMU_OBSERVERS_MAX];
unsigned int emu_nobservers;

int emu_observe(const struct emu_observer *o)
{
	if (emu_nobservers == EMU_OBSERVERS_MAX)
		return ENOSPC;
	emu_observers[emu_nobservers++] = o;
	return 0;
}

int emu_publish_made(struct emu_device *dev, const char **what)
{
	unsigned int i;
	int rc;

	for (i = 0; i < emu_nobservers; i++) {
		if (!emu_observers[i]->made)
			continue;
		rc = emu_observers[i]->made(dev, what);
		if (!rc)
			continue;
		i++;
		while (i--)
			if (emu_observers[i]->unmade)
				emu_observers[i]->unmade(dev);
		return rc;
	}
	return 0;
}

int emu_publish_start(struct emu_device *dev)
{
	unsigned int i;
	int rc;

	for (i = 0; i < emu_nobservers; i++) {
		if (!emu_observers[i]->start)
			continue;
		rc = emu_observers[i]->start(dev);
		if (!rc)
			continue;
		i++;
		while (i--)
			if (emu_observers[i]->stop)
				emu_observers[i]->stop(dev);
		return rc;
	}
	return 0;
}
