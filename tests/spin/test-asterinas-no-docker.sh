#!/usr/bin/env bash
# capture spin --kernel asterinas checks what it needs before touching
# anything: the source tree at tag v0.16.0, then Docker (client and engine).
# Each miss stops at once with EXIT_ENV_MISSING (5) saying what is missing
# and how to get it, and leaves the tree and the output alone.
# needs: docker
source "$(dirname "$0")/../lib.sh"

spin() { "$CAPTURE" spin --kernel asterinas --scenario contention "$@"; }

# A git checkout whose HEAD carries the tag: the tree check passes, so the
# Docker checks are what stops the run.
src=$TMP/asterinas
mkdir -p "$src"
git -C "$src" init -q
echo tree >"$src/README"
git -C "$src" add README
git -C "$src" -c user.name=t -c user.email=t@t commit -qm v0.16.0
git -C "$src" tag v0.16.0
git -C "$src" status --porcelain >"$TMP/before"

expect_exit 2 "--kernel asterinas needs --asterinas-src" 'asterinas-src' \
	spin -o "$TMP/out"
expect_exit 5 "a missing source tree" 'git clone --branch v0.16.0' \
	spin --asterinas-src "$TMP/none" -o "$TMP/out"
mkdir -p "$TMP/plain"
expect_exit 5 "a directory that is no git checkout" 'not a git checkout' \
	spin --asterinas-src "$TMP/plain" -o "$TMP/out"

mkdir -p "$TMP/other"
git -C "$TMP/other" init -q
git -C "$TMP/other" -c user.name=t -c user.email=t@t commit -q --allow-empty -m x
expect_exit 5 "a checkout without the tag" 'no tag v0.16.0' \
	spin --asterinas-src "$TMP/other" -o "$TMP/out"
git -C "$TMP/other" tag v0.16.0
git -C "$TMP/other" -c user.name=t -c user.email=t@t commit -q --allow-empty -m y
expect_exit 5 "a checkout past the tag" 'not at v0.16.0.*checkout v0.16.0' \
	spin --asterinas-src "$TMP/other" -o "$TMP/out"

# The Docker client present, its engine not there (this machine's case;
# DOCKER_HOST makes it so wherever the test runs).
DOCKER_HOST=unix://$TMP/no-engine.sock expect_exit 5 \
	"docker without an engine stops the run" \
	'Docker engine does not answer.*start it' \
	timeout 60 "$CAPTURE" spin --kernel asterinas --scenario contention \
	--asterinas-src "$src" -o "$TMP/out"

# No Docker client at all: a PATH with git only.
mkdir -p "$TMP/bin"
ln -s "$(command -v git)" "$TMP/bin/git"
expect_exit 5 "no docker client stops the run" \
	'docker is not installed.*install Docker' \
	env PATH="$TMP/bin" "$CAPTURE" spin --kernel asterinas --scenario contention \
	--asterinas-src "$src" -o "$TMP/out"

git -C "$src" status --porcelain >"$TMP/after"
same_bytes "the source tree is left untouched" "$TMP/before" "$TMP/after"
check "no corpus is written" test ! -e "$TMP/out"
