#ifndef PARLOR_CAVAHICLIENT_SHIM_H
#define PARLOR_CAVAHICLIENT_SHIM_H
/* Types and constants only: Discovery loads libavahi-client with dlopen, as
   it does libdns_sd, so parlor still starts (and hosts by address) where
   avahi's libraries are not installed. */
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/watch.h>
#endif
