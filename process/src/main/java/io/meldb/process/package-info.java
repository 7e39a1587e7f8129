/**
 * The one child-process launcher of MeldDB: {@link io.meldb.process.JavaCommand} (a server JVM's command line with
 * the flags of {@code bin/jvm-flags}, or this JVM's own) and {@link io.meldb.process.ChildProcess} (start, ready
 * line, output, kill, stop, descendants).
 */
package io.meldb.process;
