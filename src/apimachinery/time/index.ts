export { formatMicroTime, formatTime, goTimeString, parseMicroTime } from './format.ts';
export { formatDuration, humanDuration, parseDuration, shortHumanDuration } from './duration.ts';
