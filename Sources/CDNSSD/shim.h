#ifndef PARLOR_CDNSSD_SHIM_H
#define PARLOR_CDNSSD_SHIM_H
#include <dns_sd.h>
#endif
