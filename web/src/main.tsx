/**
 * @module The dashboard's entry: renders the app into #app.
 */
import { render } from 'preact';
import { App } from './app';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
