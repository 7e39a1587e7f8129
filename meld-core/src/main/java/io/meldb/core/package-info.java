/**
 * The meld algorithm on an off-heap multi-versioned copy-on-write tree (meld paper, PVLDB 2011).
 */
package io.meldb.core;
