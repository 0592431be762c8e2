package io.spinagent.host.springboot2;

import io.spinagent.host.CredentialsExchange;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import javax.servlet.FilterChain;
import javax.servlet.ReadListener;
import javax.servlet.ServletException;
import javax.servlet.ServletInputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;
import javax.servlet.http.HttpServletResponse;
import org.springframework.web.util.ContentCachingResponseWrapper;

/** A {@code /credentials} request as the servlet API has it, for the plugin's handler. */
final class ServletCredentialsExchange implements CredentialsExchange {

  private final HttpServletRequest request;
  private final HttpServletResponse response;
  private final FilterChain chain;
  private ContentCachingResponseWrapper held;

  ServletCredentialsExchange(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain) {
    this.request = request;
    this.response = response;
    this.chain = chain;
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String contentType() {
    return request.getContentType();
  }

  @Override
  public String path() {
    String uri = request.getRequestURI();
    String context = request.getContextPath();
    String path =
        context != null && uri.startsWith(context) ? uri.substring(context.length()) : uri;
    return path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
  }

  @Override
  public byte[] body(int maxBytes) throws IOException {
    return request.getInputStream().readNBytes(maxBytes + 1);
  }

  @Override
  public void passThrough(byte[] body) throws IOException {
    doFilter(body == null ? request : new Replay(request, body), response);
  }

  @Override
  public ClouddriverAnswer handleByClouddriver(byte[] body) throws IOException {
    ContentCachingResponseWrapper caching = new ContentCachingResponseWrapper(response);
    held = caching;
    doFilter(body == null ? request : new Replay(request, body), caching);
    return new ClouddriverAnswer() {
      @Override
      public int status() {
        return caching.getStatus();
      }

      @Override
      public void send() throws IOException {
        caching.copyBodyToResponse();
      }
    };
  }

  @Override
  public void answer(int status, byte[] body) throws IOException {
    HttpServletResponse target = held != null ? held : response;
    target.resetBuffer();
    target.setStatus(status);
    target.setContentType("application/json");
    target.setContentLength(body.length);
    target.getOutputStream().write(body);
    if (held != null) {
      held.copyBodyToResponse();
    }
  }

  private void doFilter(HttpServletRequest in, HttpServletResponse out) throws IOException {
    try {
      chain.doFilter(in, out);
    } catch (ServletException e) {
      throw new ClouddriverFailure(e);
    }
  }

  /** Clouddriver's own failure, carried through the plugin's handler to the filter unchanged. */
  static final class ClouddriverFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ClouddriverFailure(ServletException cause) {
      super(cause);
    }

    @Override
    public synchronized ServletException getCause() {
      return (ServletException) super.getCause();
    }
  }

  /** The request with its body, already read, readable again by Clouddriver. */
  private static final class Replay extends HttpServletRequestWrapper {
    private final byte[] body;

    Replay(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new UnsupportedOperationException("the body is already read");
        }

        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
          return in.read(buffer, offset, length);
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
    }

    // The length the request declared is the original body's: Spring 6 reads no further than it.
    @Override
    public String getHeader(String name) {
      return isContentLength(name) ? String.valueOf(body.length) : super.getHeader(name);
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
      return isContentLength(name)
          ? Collections.enumeration(List.of(String.valueOf(body.length)))
          : super.getHeaders(name);
    }

    private static boolean isContentLength(String name) {
      return "Content-Length".equalsIgnoreCase(name);
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }
  }
}
