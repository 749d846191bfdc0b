import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./styles.css";
import { followTheme } from "./ui/theme";

followTheme();

const root = document.getElementById("root")!;
if (location.pathname === "/bench") {
  void import("./bench").then((m) => m.runBench(root));
} else {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
