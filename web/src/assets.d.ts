/** @module Vite bundles the CSS a module imports; to the type checker such an import has no value. */
declare module '*.css';
