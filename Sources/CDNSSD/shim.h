#ifndef PARLOR_CDNSSD_SHIM_H
#define PARLOR_CDNSSD_SHIM_H
/* Types and constants only: Discovery loads the functions with dlopen, so
   parlor still starts (and can host by address) where the library is not
   installed. The full path works with or without pkg-config's -I flag. */
#include <avahi-compat-libdns_sd/dns_sd.h>
#endif
